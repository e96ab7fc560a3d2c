import { createLogger, databaseFor } from '@lore/kit';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { type Client, ok, tempDir, testConfig } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsStore, ingestInputs } from '../src/index.js';
import * as tables from '../src/tables.js';
import { startDocs, writeTree } from './helpers.js';

const log = createLogger({ name: 'test', level: 'silent' });

const INSTALL = [
  'pnpm install --frozen-lockfile',
  'pnpm --filter @acme/gateway build',
  'NODE_ENV=production node dist/main.js --port 8080',
].join('\n');
const CONFIG = ['[gateway]', 'port = 8080', '', '[gateway.tls]', 'cert = "/etc/gateway/cert.pem"'].join('\n');

describe('fenced code keeps its line breaks in docs answers and chunks', () => {
  let docs: Awaited<ReturnType<typeof startDocs>>;
  let client: Client;
  const files = tempDir();

  beforeAll(async () => {
    docs = await startDocs();
    const db = await openDatabase({
      ...databaseFor(testConfig(docs.dir), 'docs'),
      schema: tables,
      migrationsFolder: migrationsFolder(new URL('../src/x.ts', import.meta.url).href),
    });
    writeTree(files.path, {
      'deploy.md':
        '# Deploying the gateway\n\nTo deploy the gateway, install the dependencies, build the gateway package and start it with the production settings:\n\n' +
        `\`\`\`sh\n${INSTALL}\n\`\`\`\n\n` +
        'The gateway reads its TLS settings from gateway.toml:\n\n' +
        `\`\`\`toml\n${CONFIG}\n\`\`\`\n\nRestart the gateway after changing the TLS settings.\n`,
    });
    await ingestInputs({ store: new DocsStore(db), log }, [files.path], { source: 'ops' });
    db.$client.close();
    client = await docs.client('reader');
  }, 60_000);
  afterAll(async () => {
    await docs.close();
    files.cleanup();
  });

  it('search_documents returns the code block line by line', async () => {
    const r = await ok<{ results: Array<{ content: string }> }>(client, 'search_documents', {
      query: 'deploy gateway production build',
    });
    const content = r.data.results.map((x) => x.content).join('\n');
    expect(content).toContain(INSTALL);
    expect(content).toContain(CONFIG);
  });

  it('answer_query quotes a code block with its line breaks', async () => {
    const r = await ok<{ answerText: string }>(client, 'answer_query', {
      query: 'How do I deploy the gateway with production settings?',
    });
    // Each block follows the sentence that introduces it, fences and line breaks as written,
    // and is cited like any quoted passage.
    expect(r.data.answerText).toContain(`production settings:\n\`\`\`sh\n${INSTALL}\n\`\`\`\n[1]`);
    expect(r.data.answerText).toContain(`\`\`\`toml\n${CONFIG}\n\`\`\``);
    expect(r.data.answerText).toMatch(/\n\nReferences:\n\[1\] documents\//);
  });
});
