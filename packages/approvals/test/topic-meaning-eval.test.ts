/**
 * The thresholds of `src/domain/meaning.ts` measured on the calibration set
 * (`fixtures/topic-meaning-eval.ts`) through the real path: each passage is a note of its own in
 * a knowledge service with the default local model, and the topic is scored against it by
 * `KnowledgeRpc.sourceFacts`, as the gate asks it for a draft citing that note.
 */
import { type LoreService, loadNodeIdentity, MemoryDirectory } from '@lore/kit';
import { appFetch, type Client, connectClient, ok, testDeps } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { KnowledgeRpc, type TopicMeaning } from '@lore/schema/knowledge-events';
import { createUsersService } from '@lore/users/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPIC_THRESHOLDS } from '../src/domain/meaning.js';
import { requestsOf } from '../src/domain/request.js';
import { TOPIC_EVAL } from './fixtures/topic-meaning-eval.js';

/** The one passage of the set known to score high for a topic it is not about (see meaning.ts). */
const OUTLIERS = ['The health check endpoint of the API returns 200 when the database answers.'];

describe('topic thresholds on the calibration set (all-MiniLM-L6-v2)', () => {
  const t = testDeps({ LORE_RATE_LIMITS: 'false', LORE_EMBEDDINGS: 'local' });
  const services: LoreService[] = [];
  let owner: { id: string; knowledge: Client };
  const scored: Array<{ topic: string; about: boolean; text: string; score: number }> = [];
  const questions: Array<{ topic: string; about: boolean; text: string; score: number }> = [];
  const pages: Array<{ topic: string; about: boolean; text: string; score: number }> = [];

  beforeAll(async () => {
    const node = loadNodeIdentity(t.deps.config);
    const directory = new MemoryDirectory();
    await directory.registerNode(node.id, node.publicKey);
    const deps = { ...t.deps, nodeId: node.id, node, directory };
    services.push(await createUsersService(deps), await createKnowledgeService(deps));
    for (const s of services) await s.start();
    const anon = await connectClient(appFetch(services[0]!.app));
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
      username: 'owner',
      email: 'owner@example.com',
      displayName: 'owner',
    });
    owner = {
      id: r.data.agent.id,
      knowledge: await connectClient(appFetch(services[1]!.app), { key: r.data.apiKey }),
    };
    const notes = TOPIC_EVAL.flatMap((e) => [...e.about, ...e.not]);
    const names = new Map<string, string>();
    for (const [i, text] of [...new Set(notes)].entries()) {
      names.set(text, `note-${i}.md`);
      await ok(owner.knowledge, 'updateKnowledgeSources', { file_name: `note-${i}.md`, file_content: text });
    }
    for (const e of TOPIC_EVAL)
      for (const [about, list] of [
        [true, e.about],
        [false, e.not],
      ] as const)
        for (const text of list) {
          const source = names.get(text)!;
          const reply = (await t.deps.bus.request(KnowledgeRpc.sourceFacts.subject, {
            agentId: owner.id,
            sources: [source],
            excerpts: [{ source, text }],
            topics: [e.topic],
            draft: '',
          })) as { meaning: TopicMeaning };
          expect(reply.meaning.status).toBe('scored');
          scored.push({ topic: e.topic, about, text, score: reply.meaning.scores[0]!.passages[0]!.score });
        }
    // What each question asks, scored as the gate scores it: the lowest of its requests.
    for (const e of TOPIC_EVAL) {
      const source = names.get(e.about[0]!)!;
      const asked = [...e.asks.map((q) => [true, q] as const), ...e.asksNot.map((q) => [false, q] as const)];
      const parts = asked.map(([, q]) => requestsOf(q));
      const reply = (await t.deps.bus.request(KnowledgeRpc.sourceFacts.subject, {
        agentId: owner.id,
        sources: [source],
        excerpts: [{ source, text: e.about[0]! }],
        topics: [e.topic],
        requests: parts.flat(),
      })) as { meaning: TopicMeaning };
      const all = reply.meaning.scores[0]!.requests;
      let at = 0;
      for (const [i, [about, text]] of asked.entries()) {
        const mine = all.slice(at, at + parts[i]!.length);
        at += parts[i]!.length;
        questions.push({ topic: e.topic, about, text, score: Math.min(...mine) });
      }
    }
    // Each topic's passages as the sections of one page, and its other passages as another: a
    // page is read as a whole (its mean vector) beside its cited passage.
    for (const [i, e] of TOPIC_EVAL.entries())
      for (const [about, list] of [
        [true, e.about],
        [false, e.not],
      ] as const) {
        const name = `page-${i}-${about ? 'a' : 'b'}.md`;
        const body = list.map((p, k) => `## Part ${k + 1}\n${p}`).join('\n\n');
        await ok(owner.knowledge, 'updateKnowledgeSources', {
          file_name: name,
          file_content: `# Notes\n\n${body}`,
        });
        const reply = (await t.deps.bus.request(KnowledgeRpc.sourceFacts.subject, {
          agentId: owner.id,
          sources: [name],
          excerpts: [{ source: name, text: list[0]! }],
          topics: [e.topic],
        })) as { meaning: TopicMeaning };
        pages.push({ topic: e.topic, about, text: name, score: reply.meaning.scores[0]!.sources[0]!.score });
      }
    const fmt = (xs: typeof scored) =>
      xs
        .map((x) => `${x.score.toFixed(3)} ${x.topic}: ${x.text.slice(0, 50)}`)
        .sort()
        .join('\n  ');
    console.info(
      `topic eval, about:\n  ${fmt(scored.filter((x) => x.about))}\nnot about:\n  ${fmt(scored.filter((x) => !x.about))}` +
        `\nasks about:\n  ${fmt(questions.filter((x) => x.about))}\nasks something else:\n  ${fmt(questions.filter((x) => !x.about))}` +
        `\npages:\n  ${fmt(pages.map((p) => ({ ...p, text: `${p.about ? 'about' : 'other'} ${p.text}` })))}`,
    );
  }, 300_000);
  afterAll(async () => {
    for (const s of services.reverse()) await s.stop();
    await t.cleanup();
  });

  it('holds few passages about something else, and none from another domain', () => {
    const held = scored.filter(
      (x) => !x.about && !OUTLIERS.includes(x.text) && x.score >= TOPIC_THRESHOLDS.denyDoubt,
    );
    console.info(`topic eval: ${held.length}/${scored.filter((x) => !x.about).length} other passages held`);
    // Only neighbours of the topic (a printer and a dishwasher beside a coffee machine) may be held.
    expect(held.length).toBeLessThanOrEqual(2);
    for (const x of held) expect(x.topic).toBe('coffee machine');
  });

  it('holds or rejects most passages about the topic, and allows by meaning only above every other passage', () => {
    const about = scored.filter((x) => x.about);
    const reached = about.filter((x) => x.score >= TOPIC_THRESHOLDS.denyDoubt).length;
    console.info(`topic eval: ${reached}/${about.length} passages about a topic reach the hold floor`);
    expect(reached / about.length).toBeGreaterThanOrEqual(0.75);
    const highestOther = Math.max(
      ...scored.filter((x) => !x.about && !OUTLIERS.includes(x.text)).map((x) => x.score),
    );
    expect(TOPIC_THRESHOLDS.allow).toBeGreaterThan(highestOther);
    expect(TOPIC_THRESHOLDS.denyMatch).toBeGreaterThan(highestOther);
  });

  it('covers by meaning a question about the topic, never one about something else', () => {
    const other = questions.filter((x) => !x.about && x.score >= TOPIC_THRESHOLDS.request);
    expect(other.map((x) => `${x.topic}: ${x.text} (${x.score.toFixed(3)})`)).toEqual([]);
    const about = questions.filter((x) => x.about);
    const covered = about.filter((x) => x.score >= TOPIC_THRESHOLDS.request).length;
    console.info(
      `topic eval: ${covered}/${about.length} questions about a topic reach the request threshold`,
    );
    // A question meaning misses waits for its owner: coverage may be modest, a wrong cover may not.
    expect(covered / about.length).toBeGreaterThanOrEqual(0.5);
  });

  it('reads every page about a topic as about it, and no page of other passages', () => {
    const missed = pages.filter((p) => p.about && p.score < TOPIC_THRESHOLDS.sourceDoubt);
    expect(missed.map((p) => `${p.topic} (${p.score.toFixed(3)})`)).toEqual([]);
    const held = pages.filter((p) => !p.about && p.score >= TOPIC_THRESHOLDS.sourceDoubt);
    expect(held.map((p) => `${p.topic} (${p.score.toFixed(3)})`)).toEqual([]);
  });
});
