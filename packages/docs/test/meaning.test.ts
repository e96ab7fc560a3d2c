import { ok, tempDir } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDocsCli } from '../src/index.js';
import { capture, startDocs, writeTree } from './helpers.js';

const PAGES = {
  'espresso.md':
    '# Espresso\n\nGrind finer when the shot runs fast; aim for 25 to 30 seconds for a double shot. If it runs slow and tastes bitter, grind coarser.',
  'houseplants.md':
    '# Houseplants\n\nWater a monstera when the top 5 cm of soil are dry; yellow leaves usually mean too much water.',
  'remote-access.md':
    '# Remote access\n\nConnect to the office VPN with WireGuard: install the client, import the profile from the IT portal and switch the tunnel on.',
};
const PARAPHRASE = 'how do I get onto the company network from home';

interface SearchOut {
  results: Array<{ parent: string; foundBy: string[] }>;
}

async function withCorpus(env: Record<string, string>) {
  const files = tempDir();
  writeTree(files.path, PAGES);
  const docs = await startDocs({ LORE_INGEST_OWN_DOCS: 'false', ...env });
  const out = capture();
  expect(
    await runDocsCli(
      ['ingest', files.path, '--source', 'office', '--base-uri', 'https://wiki.example.com/'],
      {
        config: docs.deps.config,
        stdout: out.stream,
        stderr: capture().stream,
        isTTY: false,
      },
    ),
  ).toBe(0);
  const client = await docs.client('reader');
  return {
    client,
    search: async (query: string) =>
      (await ok<SearchOut>(client, 'search_documents', { query })).data.results,
    async close() {
      await docs.close();
      files.cleanup();
    },
  };
}

describe('documentation found by meaning (local model, over MCP)', () => {
  let c: Awaited<ReturnType<typeof withCorpus>>;
  beforeAll(async () => {
    c = await withCorpus({ LORE_EMBEDDINGS: 'local' });
    // Searchable by words at once; the service embeds the chunks in the background.
    const end = Date.now() + 120_000;
    while (!(await c.search(PARAPHRASE)).some((r) => r.foundBy.includes('meaning'))) {
      if (Date.now() > end) throw new Error('no chunk was ever found by meaning');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);
  afterAll(() => c.close());

  it('search_documents finds a page that answers a question worded otherwise', async () => {
    const [top] = await c.search(PARAPHRASE);
    expect(top).toMatchObject({ parent: 'documents/wiki.example.com/remote-access', foundBy: ['meaning'] });
    const both = await c.search('WireGuard VPN from home');
    expect(both[0]).toMatchObject({ parent: 'documents/wiki.example.com/remote-access' });
    expect(both[0]!.foundBy).toEqual(['words', 'meaning']);
  });

  it('answer_query answers it from that page and says the page was found by meaning', async () => {
    const r = await ok<{ references: string[]; foundBy?: Record<string, string[]> }>(
      c.client,
      'answer_query',
      {
        query: 'My swiss cheese plant is drooping, how often should I give it a drink?',
      },
    );
    expect(r.data.references[0]).toBe('documents/wiki.example.com/houseplants');
    expect(r.data.foundBy?.['documents/wiki.example.com/houseplants']).toContain('meaning');
  });
});

describe('documentation found by words alone (LORE_EMBEDDINGS=off)', () => {
  let c: Awaited<ReturnType<typeof withCorpus>>;
  beforeAll(async () => {
    c = await withCorpus({});
  }, 60_000);
  afterAll(() => c.close());

  it('finds the words, marked as found by words, and not the paraphrase’s page first', async () => {
    const hits = await c.search('WireGuard tunnel');
    expect(hits[0]).toMatchObject({ parent: 'documents/wiki.example.com/remote-access', foundBy: ['words'] });
    const para = await c.search(PARAPHRASE);
    expect(para.every((h) => h.foundBy.join() === 'words')).toBe(true);
    expect(para[0]?.parent).not.toBe('documents/wiki.example.com/remote-access');
  });
});
