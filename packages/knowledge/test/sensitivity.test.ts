import { LocalEmbedder } from '@lore/embed';
import { type Client, ok } from '@lore/kit/testing';
import { KnowledgeRpc, type PassageFacts } from '@lore/schema/knowledge-events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyByRules, SemanticSensitivity } from '../src/domain/sensitivity.js';
import { SourceSubjects, SUBJECT_THRESHOLD } from '../src/domain/source-subjects.js';
import { MODEL_ONLY_HEALTH, ORDINARY_PASSAGES, SENSITIVE_PASSAGES } from './fixtures/sensitivity-eval.js';
import { type Env, eventually, startEnv } from './helpers.js';

type Listed = {
  sources: Array<{ name: string; sensitivity: Record<string, number> }>;
};

const TEAM = `# Team notes

## Priya
Priya has type 1 diabetes and keeps insulin in the fridge.

## Build NAS
Password for the build NAS: bluebird

## Front desk
call her on 07700 900987 or at home on 020 7946 0018

## Standup
Standup is at 09:30 in the small meeting room; keep it under fifteen minutes.
`;

describe('sensitivity decided at ingest (no model)', () => {
  let t: Env;
  let owner: Client;
  let ownerId: string;
  const facts = async (excerpts: Array<{ source: string; text: string }>) =>
    (
      (await t.env.deps.bus.request(KnowledgeRpc.sourceFacts.subject, {
        agentId: ownerId,
        sources: [...new Set(excerpts.map((e) => e.source))],
        excerpts,
      })) as { passages: PassageFacts[] }
    ).passages;

  beforeAll(async () => {
    t = await startEnv();
    ({ client: owner, id: ownerId } = await t.register('owner'));
    await ok(owner, 'updateKnowledgeSources', { file_name: 'team.md', file_content: TEAM });
  });
  afterAll(() => t.close());

  it('tells the owner how many passages hold what, once classified', async () => {
    await eventually(async () => {
      const l = (await ok<Listed>(owner, 'listKnowledgeSources')).data;
      return l.sources[0]!.sensitivity.unclassified === 0;
    });
    const r = await ok<Listed>(owner, 'listKnowledgeSources');
    expect(r.data.sources[0]!.sensitivity).toMatchObject({
      credentials: 1,
      contact: 1,
      health: 1,
      unclassified: 0,
    });
    expect(r.text).toContain('1 passage holds credentials: answers drawn from it always wait for you.');
    expect(r.text).toContain('1 passage holds health facts');
  });

  it('says what the passage behind each cited excerpt holds, and marks an excerpt found nowhere', async () => {
    const p = await facts([
      { source: 'team.md', text: 'Priya has type 1 diabetes' },
      { source: 'team.md', text: 'Standup is at 09:30 in the small meeting room' },
      { source: 'team.md', text: 'A sentence that is in no passage at all' },
      { source: 'other.md', text: 'Priya has type 1 diabetes' },
    ]);
    expect(p.map((x) => [x.classified, x.sensitivity])).toEqual([
      [true, ['health']],
      [true, []],
      [false, []],
      [false, []],
    ]);
  });

  it('classifies a cited passage on the spot when its turn has not come yet', async () => {
    await ok(owner, 'updateKnowledgeSources', {
      file_name: 'pay.md',
      file_content: '# Pay\n\nJensen Okafor makes 96,500 euros a year.',
    });
    const [p] = await facts([{ source: 'pay.md', text: 'Jensen Okafor makes 96,500 euros a year.' }]);
    expect(p).toMatchObject({ classified: true, sensitivity: ['money'] });
  });
});

describe('sensitivity by meaning (all-MiniLM-L6-v2, on the calibration set)', () => {
  const embedder = new LocalEmbedder({ idleMs: 5_000 });
  afterAll(() => embedder.close());

  it('finds every sensitive passage of the set, health facts without listed words among them, and flags at most one ordinary one', async () => {
    const semantic = new SemanticSensitivity(embedder);
    const texts = [...SENSITIVE_PASSAGES.map(([t]) => t), ...ORDINARY_PASSAGES];
    const byModel = await semantic.classify(texts);
    const both = await Promise.all(
      texts.map(async (t, i) => [...new Set([...(await classifyByRules(t)), ...byModel[i]!])]),
    );
    const missed = SENSITIVE_PASSAGES.filter(([, c], i) => !both[i]!.includes(c)).map(([t]) => t);
    const flagged = ORDINARY_PASSAGES.filter((_, i) => both[SENSITIVE_PASSAGES.length + i]!.length);
    console.info(
      `sensitivity eval: ${SENSITIVE_PASSAGES.length - missed.length}/${SENSITIVE_PASSAGES.length} found, ${flagged.length}/${ORDINARY_PASSAGES.length} ordinary flagged ${JSON.stringify(flagged)}`,
    );
    expect(missed).toEqual([]);
    expect(flagged.length).toBeLessThanOrEqual(1);
    // The model alone finds the health facts no rule names.
    for (const text of MODEL_ONLY_HEALTH) {
      expect(await classifyByRules(text), text).not.toContain('health');
      expect(byModel[texts.indexOf(text)], text).toContain('health');
    }
  }, 120_000);

  it('says a contacts page is not about programming for its "API code reviewer", and a setup guide is', async () => {
    const subjects = new SourceSubjects(null as never, embedder);
    const about = async (title: string, passages: string[]) =>
      (await subjects.subjectsOfTexts(passages.map((p) => `${title}\n${p}`)))
        .filter(([, score]) => score >= SUBJECT_THRESHOLD)
        .map(([name]) => name);
    expect(
      await about('team contacts', [
        'Call Priya on 07700 900987 or at home on 020 7946 0018.',
        'Dana lives at 1600 Elm Street, Springfield, IL 62704.',
        'The API code reviewer this week is Jonas; the rota moves every Monday.',
      ]),
    ).not.toContain('programming');
    expect(
      await about('dev setup', [
        'Clone the repository with git clone, then run pnpm install; the git hooks run the linter.',
        'docker compose up starts PostgreSQL on port 5432 and applies the SQL migrations.',
        'To debug a failing test, run vitest with the inspect flag and attach the debugger.',
      ]),
    ).toEqual(['programming']);
  }, 120_000);
});
