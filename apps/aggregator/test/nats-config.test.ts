import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RENDERED, REPO_DIR } from '../../../infra/nats/generate.js';
import { NATS_SERVICES, permissionsFor } from '../../../infra/nats/permissions.js';

describe('the shipped NATS configuration', () => {
  it.each(Object.keys(RENDERED))('%s is what pnpm nats:config renders', (file) => {
    expect(readFileSync(`${REPO_DIR}${file}`, 'utf8')).toBe(RENDERED[file]!());
  });

  it('gives each service its own events, replies and inbox, and nobody else’s', () => {
    for (const service of NATS_SERVICES) {
      const p = permissionsFor(service);
      const others = NATS_SERVICES.filter((o) => o !== service);
      expect(p.publish).toContain(`lore.${service}.>`);
      for (const o of others) {
        expect(p.publish).not.toContain(`lore.${o}.>`);
        expect(p.subscribe).not.toContain(`rpc.${o}.>`);
        expect(p.subscribe).not.toContain(`_INBOX.${o}.>`);
      }
      expect(p.subscribe.filter((s) => s.startsWith('_INBOX'))).toEqual([`_INBOX.${service}.>`]);
      const writesDirectory = p.publish.some((s) => s.startsWith('$KV.lore_nodes'));
      expect(writesDirectory).toBe(service === 'users');
    }
  });

  it('lets only approvals ask queries to decide, and only queries retrieve knowledge', () => {
    const senders = (subject: string) =>
      NATS_SERVICES.filter((s) => permissionsFor(s).publish.includes(subject));
    expect(senders('rpc.queries.decide')).toEqual(['approvals']);
    expect(senders('rpc.knowledge.retrieve')).toEqual(['queries']);
    expect(senders('rpc.users.list_agents')).toEqual([]);
  });
});
