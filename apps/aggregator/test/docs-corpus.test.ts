import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDocsCli } from '@lore/docs';
import { appFetch, type Client, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';

interface SearchOut {
  results: Array<{ parent: string; content: string; document: { uri: string } }>;
}
interface GetOut {
  documents: Array<{ name: string; dataSource: string }>;
}

/** Lore ingests its own READMEs as corpus `lore`; the operator's own docs must not drown in them. */
describe('docs answers stay on the operator’s corpus', () => {
  const dir = tempDir();
  const config = testConfig(join(dir.path, 'data'), { LORE_RATE_LIMITS: 'false' });
  let lore: AllInOne;
  let reader: Client;

  const sources = async (names: string[]) =>
    (await ok<GetOut>(reader, 'get_documents', { names })).data.documents.map((d) => d.dataSource);

  beforeAll(async () => {
    lore = await startAllInOne(config);
    const anon = await connectClient(appFetch(lore.app));
    const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username: 'corpus_reader',
      email: 'c@example.com',
      displayName: 'Reader',
    });
    reader = await connectClient(appFetch(lore.app), { key: reg.data.apiKey });
  }, 90_000);
  afterAll(async () => {
    await lore.close();
    dir.cleanup();
  });

  it('answers from Lore’s own docs until the operator ingests a corpus, then from the operator’s', async () => {
    // Lore's own documentation is ingested on the first call that reads the corpus, which waits for it.
    await expect
      .poll(
        async () =>
          (await ok<SearchOut>(reader, 'search_documents', { query: 'aggregator', corpus: 'lore' })).data
            .results.length,
        { timeout: 60_000, interval: 200 },
      )
      .toBeGreaterThan(0);
    const question = 'How does the aggregator forward tool calls to the services?';
    const before = await ok<{ references: string[] }>(reader, 'answer_query', { query: question });
    expect(before.data.references.length).toBeGreaterThan(0);
    expect(new Set(await sources(before.data.references))).toEqual(new Set(['lore']));

    const folder = join(dir.path, 'handbook');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'gateway.md'),
      '# Our gateway\n\nThe aggregator in front of our services forwards tool calls to them over HTTP.\n\n' +
        '```sh\ncurl -s http://gateway/mcp\ncurl -s http://gateway/healthz\n```\n',
    );
    const sink = { write: () => true } as unknown as NodeJS.WritableStream;
    expect(
      await runDocsCli(['docs', 'ingest', folder, '--source', 'handbook'], {
        config,
        stdout: sink,
        stderr: sink,
        isTTY: false,
      }),
    ).toBe(0);

    const after = await ok<{ references: string[] }>(reader, 'answer_query', { query: question });
    expect(after.data.references.length).toBeGreaterThan(0);
    expect(new Set(await sources(after.data.references))).toEqual(new Set(['handbook']));

    // Asking for Lore's own documentation still works.
    const own = await ok<{ references: string[] }>(reader, 'answer_query', {
      query: question,
      corpus: 'lore',
    });
    expect(new Set(await sources(own.data.references))).toEqual(new Set(['lore']));

    // search_documents takes the same filter; a code block keeps its line breaks in the chunk.
    const found = await ok<SearchOut>(reader, 'search_documents', {
      query: 'gateway curl',
      corpus: 'handbook',
    });
    expect(found.data.results.length).toBeGreaterThan(0);
    expect(new Set(await sources(found.data.results.map((r) => r.parent)))).toEqual(new Set(['handbook']));
    expect(found.data.results.map((r) => r.content).join('\n')).toContain(
      'curl -s http://gateway/mcp\ncurl -s http://gateway/healthz',
    );
  }, 120_000);
});
