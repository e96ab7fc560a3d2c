import { type Client, call, ok } from '@lore/kit/testing';
import { KnowledgeRpc, KnowledgeSourceAdded } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Env, startEnv } from './helpers.js';

/** Classification runs in the background: on a busy machine it takes more than vi.waitFor's default second. */
const WAIT = { timeout: 30_000, interval: 50 };

type Passage = { source: string; relevant: boolean; sharing: string; text: string };
type Listed = { sources: Array<{ name: string; sharing: string; summary: string }> };

const TS =
  '# TypeScript notes\n\nTypeScript generics keep the type of an argument; conditional types choose between types.';
const PAYROLL =
  '# Payroll\n\nThe payroll database holds every salary. Payroll runs on the 25th; TypeScript scripts export the payroll.';
const DIARY = '# Diary\n\nPayroll review with Mallory: TypeScript migration of the payroll scripts is late.';

describe('per-source sharing', () => {
  let t: Env;
  let dave: Client;
  let daveId: string;
  const retrieve = async (query: string) =>
    (
      (await t.env.deps.bus.request(KnowledgeRpc.retrieve.subject, { agentId: daveId, query, limit: 8 })) as {
        passages: Passage[];
      }
    ).passages;
  const added = (source: string) =>
    t.events.filter(
      (e) =>
        e.subject === KnowledgeSourceAdded.subject && (e.payload as { source: string }).source === source,
    );

  beforeAll(async () => {
    t = await startEnv();
    ({ client: dave, id: daveId } = await t.register('dave'));
  });
  afterAll(() => t.close());

  it('adds sources auto by default, or manual / private when asked, and lists how each is shared', async () => {
    const a = await ok<{ sharing: string; summary: string }>(dave, 'updateKnowledgeSources', {
      file_name: 'typescript.md',
      file_content: TS,
      summary: 'My TypeScript notes',
    });
    expect(a.data).toMatchObject({ sharing: 'auto', summary: 'My TypeScript notes' });
    const m = await ok<{ sharing: string }>(dave, 'updateKnowledgeSources', {
      file_name: 'payroll.md',
      file_content: PAYROLL,
      sharing: 'manual',
    });
    expect(m.data.sharing).toBe('manual');
    expect(m.text).toContain('Sharing: manual');
    await ok(dave, 'updateKnowledgeSources', {
      file_name: 'diary.md',
      file_content: DIARY,
      sharing: 'private',
    });
    const list = await ok<Listed>(dave, 'listKnowledgeSources', {});
    expect(list.data.sources.map((s) => [s.name, s.sharing, s.summary])).toEqual([
      ['diary.md', 'private', ''],
      ['payroll.md', 'manual', ''],
      ['typescript.md', 'auto', 'My TypeScript notes'],
    ]);
    expect(list.text).toContain('shared private');
  });

  it('never retrieves a private source for drafting, and says each passage’s sharing', async () => {
    const passages = await retrieve('payroll TypeScript scripts');
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.some((p) => p.source === 'diary.md')).toBe(false);
    expect(passages.find((p) => p.source === 'payroll.md')?.sharing).toBe('manual');
    // The owner's own search still finds it.
    const own = await ok<{ passages: Array<{ source: string }> }>(dave, 'searchKnowledge', {
      query: 'Mallory payroll review',
    });
    expect(own.data.passages.some((p) => p.source === 'diary.md')).toBe(true);
  });

  it('sends no extracted keywords for sources that are not shared auto', async () => {
    // Once classified, each source is announced again: with its keywords only when shared auto.
    await vi.waitFor(() => expect(added('typescript.md')).toHaveLength(2), WAIT);
    await vi.waitFor(() => expect(added('diary.md')).toHaveLength(2), WAIT);
    await vi.waitFor(() => expect(added('payroll.md')).toHaveLength(2), WAIT);
    for (const e of [...added('diary.md'), ...added('payroll.md')])
      expect((e.payload as { keywords: string[] }).keywords).toEqual([]);
    expect(added('diary.md')[1]!.payload).toMatchObject({ sharing: 'private', keywords: [] });
    expect(added('payroll.md')[1]!.payload).toMatchObject({ sharing: 'manual', keywords: [] });
    // Nothing extracted leaves before the passages are classified.
    expect(added('typescript.md')[0]!.payload).toMatchObject({ keywords: [] });
    const ts = added('typescript.md')[1]!.payload as { keywords: string[]; summary: string };
    expect(ts.keywords).toContain('typescript');
    expect(ts.summary).toBe('My TypeScript notes');
  });

  it('sends no word of a passage classified sensitive, and sends it again when the sharing changes', async () => {
    const HEALTH =
      '# Team notes\n\nThe release train leaves every Tuesday; the release notes list each change.\n\n' +
      '## Marguerite\n\nMarguerite takes Zorvexil for her diabetes and injects insulin twice a day; Zorvexil makes her tired, so Zorvexil doses are taken at night.';
    await ok(dave, 'updateKnowledgeSources', { file_name: 'team.md', file_content: HEALTH });
    await vi.waitFor(() => expect(added('team.md')).toHaveLength(2), WAIT);
    // The owner's own listing keeps every word: the word would be a keyword if it were public.
    const own = await ok<{ sources: Array<{ name: string; keywords: string[] }> }>(
      dave,
      'listKnowledgeSources',
      {},
    );
    expect(own.data.sources.find((s) => s.name === 'team.md')!.keywords).toContain('zorvexil');
    const announced = added('team.md').map((e) => e.payload as { keywords: string[] });
    expect(announced[1]!.keywords).toContain('release');
    for (const a of announced)
      expect(a.keywords.join(' ')).not.toMatch(/zorvexil|insulin|diabetes|marguerite/);
    await ok(dave, 'setKnowledgeSourceSharing', { source: 'team.md', sharing: 'manual' });
    await ok(dave, 'setKnowledgeSourceSharing', { source: 'team.md', sharing: 'auto' });
    await vi.waitFor(() => expect(added('team.md')).toHaveLength(4), WAIT);
    expect(added('team.md')[2]!.payload).toMatchObject({ sharing: 'manual', keywords: [] });
    const back = added('team.md')[3]!.payload as { sharing: string; keywords: string[] };
    expect(back.sharing).toBe('auto');
    expect(back.keywords).toContain('release');
    expect(back.keywords.join(' ')).not.toMatch(/zorvexil|insulin|diabetes|marguerite/);
  });

  it('changes sharing with setKnowledgeSourceSharing and tells the users service', async () => {
    const r = await ok<{ sharing: string; previous: string }>(dave, 'setKnowledgeSourceSharing', {
      source: 'diary.md',
      sharing: 'auto',
    });
    expect(r.data).toMatchObject({ sharing: 'auto', previous: 'private' });
    expect(r.text).toMatch(/shared auto \(was private\)/);
    expect((await retrieve('Mallory payroll review')).some((p) => p.source === 'diary.md')).toBe(true);
    await vi.waitFor(() => expect(added('diary.md')).toHaveLength(3), WAIT);
    expect(added('diary.md')[2]!.payload).toMatchObject({ sharing: 'auto' });
    expect((added('diary.md')[2]!.payload as { keywords: string[] }).keywords).toContain('payroll');
    await ok(dave, 'setKnowledgeSourceSharing', { source: 'diary.md', sharing: 'private' });
    expect((await retrieve('Mallory payroll review')).some((p) => p.source === 'diary.md')).toBe(false);
  });

  it('keeps a source’s sharing when it is replaced without one', async () => {
    await ok(dave, 'updateKnowledgeSources', { file_name: 'diary.md', file_content: `${DIARY} More.` });
    const list = await ok<Listed>(dave, 'listKnowledgeSources', {});
    expect(list.data.sources.find((s) => s.name === 'diary.md')?.sharing).toBe('private');
  });

  it('answers rpc.knowledge.source_facts for the gate, with missing sources named', async () => {
    const r = (await t.env.deps.bus.request(KnowledgeRpc.sourceFacts.subject, {
      agentId: daveId,
      sources: ['typescript.md', 'payroll.md', 'gone.md'],
    })) as { sources: Array<{ name: string; sharing: string; keywords: string[] }> };
    expect(r.sources.map((s) => [s.name, s.sharing])).toEqual([
      ['typescript.md', 'auto'],
      ['payroll.md', 'manual'],
      ['gone.md', 'missing'],
    ]);
    expect(r.sources[1]!.keywords).toContain('payroll');
  });

  it('refuses bad input with the field named', async () => {
    expect(
      (
        await call(dave, 'updateKnowledgeSources', {
          file_name: 'x.md',
          file_content: 'x y',
          sharing: 'public',
        })
      ).error,
    ).toMatchObject({ code: 400, data: { field: 'sharing' } });
    expect((await call(dave, 'setKnowledgeSourceSharing', { source: 'typescript.md' })).error).toMatchObject({
      code: 400,
      data: { field: 'sharing' },
    });
    expect(
      (await call(dave, 'setKnowledgeSourceSharing', { source: 'typescript.md', summary: 'two\nlines' }))
        .error,
    ).toMatchObject({ code: 400, data: { field: 'summary' } });
    expect(
      (await call(dave, 'setKnowledgeSourceSharing', { source: 'nope.md', sharing: 'manual' })).error,
    ).toMatchObject({ code: 404, data: { field: 'source' } });
  });
});
