import { type Client, call, ok } from '@lore/kit/testing';
import { KnowledgeRpc, KnowledgeSourceAdded } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Env, startEnv } from './helpers.js';

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
      (await t.env.deps.bus.request(KnowledgeRpc.retrieve, { agentId: daveId, query, limit: 8 })) as {
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
    await vi.waitFor(() => expect(added('diary.md')).toHaveLength(1));
    expect(added('diary.md')[0]!.payload).toMatchObject({ sharing: 'private', keywords: [] });
    expect(added('payroll.md')[0]!.payload).toMatchObject({ sharing: 'manual', keywords: [] });
    const ts = added('typescript.md')[0]!.payload as { keywords: string[]; summary: string };
    expect(ts.keywords.length).toBeGreaterThan(0);
    expect(ts.summary).toBe('My TypeScript notes');
  });

  it('changes sharing with setKnowledgeSourceSharing and tells the users service', async () => {
    const r = await ok<{ sharing: string; previous: string }>(dave, 'setKnowledgeSourceSharing', {
      source: 'diary.md',
      sharing: 'auto',
    });
    expect(r.data).toMatchObject({ sharing: 'auto', previous: 'private' });
    expect(r.text).toMatch(/shared auto \(was private\)/);
    expect((await retrieve('Mallory payroll review')).some((p) => p.source === 'diary.md')).toBe(true);
    await vi.waitFor(() => expect(added('diary.md')).toHaveLength(2));
    await ok(dave, 'setKnowledgeSourceSharing', { source: 'diary.md', sharing: 'private' });
    expect((await retrieve('Mallory payroll review')).some((p) => p.source === 'diary.md')).toBe(false);
  });

  it('keeps a source’s sharing when it is replaced without one', async () => {
    await ok(dave, 'updateKnowledgeSources', { file_name: 'diary.md', file_content: `${DIARY} More.` });
    const list = await ok<Listed>(dave, 'listKnowledgeSources', {});
    expect(list.data.sources.find((s) => s.name === 'diary.md')?.sharing).toBe('private');
  });

  it('answers rpc.knowledge.source_facts for the gate, with missing sources named', async () => {
    const r = (await t.env.deps.bus.request(KnowledgeRpc.sourceFacts, {
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
