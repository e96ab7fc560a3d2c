import { ConfigError, loadConfig } from '@lore/kit';
import { AnswerShared, QuestionAsked } from '@lore/schema/queries';
import { describe, expect, it } from 'vitest';
import { AggregatorConfigSchema } from './config.js';
import { networkLinkSettings, QUERIES_TRAFFIC } from './network-link.js';

const config = (env: Record<string, string>) =>
  loadConfig(
    {
      LORE_DATA_DIR: '/tmp/lore-network-link-test',
      NATS_URL: 'nats://127.0.0.1:4222',
      LORE_NETWORK_NATS_URL: 'nats://127.0.0.1:4222',
      LORE_NETWORK_NATS_PASSWORD: 'pw',
      ...env,
    },
    AggregatorConfigSchema,
  );

const problem = (env: Record<string, string>) => {
  try {
    networkLinkSettings(config(env));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems.join('\n');
  }
  return null;
};

describe('the network link’s settings', () => {
  it('name the variable that is missing or contradicts another', () => {
    expect(problem({ LORE_NETWORK_NATS_URL: '' })).toMatch(/^LORE_NETWORK_NATS_URL: required/);
    expect(problem({ NATS_URL: '' })).toMatch(/^NATS_URL: /);
    expect(problem({ LORE_NETWORK_NATS_PASSWORD: '' })).toMatch(/^LORE_NETWORK_NATS_PASSWORD: /);
    expect(
      problem({ LORE_NETWORK_ANNOUNCE_SECONDS: '30', LORE_NETWORK_DIRECTORY_TTL_SECONDS: '60' }),
    ).toMatch(/^LORE_NETWORK_DIRECTORY_TTL_SECONDS: 60 s must exceed two announce periods/);
    expect(() => config({ LORE_NETWORK_DIRECTORY_TTL_SECONDS: 'soon' })).toThrow(
      /LORE_NETWORK_DIRECTORY_TTL_SECONDS/,
    );
  });

  it('default the directory TTL to the link’s (five announce periods), and take a longer one', () => {
    expect(networkLinkSettings(config({})).directoryTtlMs).toBeUndefined();
    const s = networkLinkSettings(config({ LORE_NETWORK_DIRECTORY_TTL_SECONDS: '600' }));
    expect(s.directoryTtlMs).toBe(600_000);
    expect(s.announceEveryMs).toBe(30_000);
  });
});

describe('what the link carries', () => {
  const route = (subject: string, payload: unknown) =>
    QUERIES_TRAFFIC.events.find((e) => e.subject === subject)!.route(payload);

  it('routes a question from its asker to its recipients’ nodes, until it expires', () => {
    expect(
      route(QuestionAsked.subject, {
        asker: { id: 'agt-a', handle: 'alice', node: 'node-a' },
        recipients: [{ id: 'agt-b', handle: 'bob', node: 'node-b' }],
        expiresAt: '2030-01-01T00:00:00.000Z',
      }),
    ).toEqual({
      sender: { id: 'agt-a', node: 'node-a' },
      recipients: [{ id: 'agt-b', node: 'node-b' }],
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
  });

  it('routes an answer from the agent asked back to the asker', () => {
    expect(route(AnswerShared.subject, { askerId: 'agt-a', recipientId: 'agt-b' })).toEqual({
      sender: { id: 'agt-b' },
      recipients: [{ id: 'agt-a' }],
    });
  });

  it('refuses a payload it cannot route, naming the field', () => {
    expect(() => route(QuestionAsked.subject, { asker: { id: 'agt-a' }, recipients: [] })).toThrow(
      /asker\.node/,
    );
    expect(() => route(QuestionAsked.subject, { asker: { id: 'a', node: 'n' }, recipients: [{}] })).toThrow(
      /recipients\[0\]\.id/,
    );
    expect(() => route(AnswerShared.subject, { askerId: 'agt-a' })).toThrow(/recipientId/);
  });

  it('reads the node’s questions and answers with one consumer over the queries events', () => {
    expect(QUERIES_TRAFFIC.outbox.filter).toBe('lore.queries.>');
    for (const e of QUERIES_TRAFFIC.events) expect(e.subject.startsWith('lore.queries.')).toBe(true);
  });
});
