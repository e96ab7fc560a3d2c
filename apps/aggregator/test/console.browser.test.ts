import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createApprovalsService } from '@lore/approvals';
import { createDensService } from '@lore/dens';
import { createDmsService } from '@lore/dms';
import { createDocsService } from '@lore/docs';
import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { appFetch, type Client, connectClient, makePdf, ok, tempDir, testConfig } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { createQueriesService } from '@lore/queries';
import { createUsersService } from '@lore/users';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';
import { artefactDir, browserAvailable, launchChromium } from './browser.js';
import { QUANTUM_TXT, QUESTION } from './fixtures/knowledge.js';

const SERVICES = [
  { name: 'users', create: createUsersService },
  { name: 'knowledge', create: createKnowledgeService },
  { name: 'dens', create: createDensService },
  { name: 'dms', create: createDmsService },
  { name: 'queries', create: createQueriesService },
  { name: 'approvals', create: createApprovalsService },
  { name: 'docs', create: createDocsService },
];

interface Agent {
  handle: string;
  key: string;
  c: Client;
}

describe.skipIf(!browserAvailable())('the owner console in a real browser', () => {
  const dir = tempDir();
  const shots = artefactDir();
  let lore: AllInOne;
  let http: HttpServerHandle;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let owner: Agent;
  let alice: Agent;
  let bob: Agent;
  const url = (p: string) => `${http.url}${p}`;
  const cspErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    const config = testConfig(dir.path, {
      LORE_RATE_LIMITS: 'false',
      LORE_PORT: '0',
      LORE_DOCS_OPERATORS: 'olivia',
      LORE_INGEST_OWN_DOCS: 'false',
    });
    lore = await startAllInOne(config, { services: SERVICES });
    http = await serveHttp(lore.app, config, 0);
    const anon = await connectClient(appFetch(lore.app));
    const join = async (username: string, bio: string): Promise<Agent> => {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: username[0]!.toUpperCase() + username.slice(1),
        bio,
      });
      return {
        handle: username,
        key: r.data.apiKey,
        c: await connectClient(appFetch(lore.app), { key: r.data.apiKey }),
      };
    };
    owner = await join('olivia', 'Quantum hardware engineer.');
    alice = await join('alice', 'Professor of physics.');
    bob = await join('bob', 'Curious about everything.');
    await ok(owner.c, 'updateKnowledgeSources', {
      file_name: 'quantum_computing.txt',
      file_content: QUANTUM_TXT,
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    page = await context.newPage();
    // Every Content Security Policy refusal the browser reports, on any page, during any test.
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to (apply|load|execute)/i.test(m.text()))
        cspErrors.push(`${page.url()}: ${m.text()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await lore?.close();
    dir.cleanup();
  });

  it('signs in with the agent key and keeps the key out of the browser', async () => {
    await page.goto(url('/console'));
    await page.waitForURL(/\/console\/sign-in$/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await shot('sign-in');
    await page.getByLabel('API key').fill(owner.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'lore_console')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Strict');
    expect(JSON.stringify(cookies)).not.toContain(owner.key);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + document.cookie)).not.toContain(
      'lore_sk_',
    );
    await page.locator('#inbox[data-connected="true"]').waitFor();
    await shot('sign-in-empty-inbox');
  });

  let firstId: string;
  it('shows a new question live, then edits and approves it; the asker sees the edited text', async () => {
    const t0 = performance.now();
    firstId = (
      await ok<{ query_id: string }>(alice.c, 'cqAskQuestion', { question: QUESTION, peers: ['olivia'] })
    ).data.query_id;
    const card = page.locator(`#q-${firstId}`);
    await card.waitFor({ timeout: 15_000 });
    const ms = performance.now() - t0;
    console.log(`console: ask to inbox row visible without reload ${ms.toFixed(0)} ms`);
    // Driven by the bus's events: well inside the 5 s a poll would take (polling is only a fallback).
    expect(ms).toBeLessThan(5000);
    await expect.poll(() => card.locator('.draft-text').textContent()).toContain('error correction');
    await expect.poll(() => card.textContent()).toContain('@alice');
    await shot('inbox-pending');

    const edited =
      'Error correction crossed the threshold in 2024: larger surface codes now lower logical error rates.';
    await card.getByText('Edit, then approve').click();
    await card.getByLabel('Answer to send').fill(edited);
    await card.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => card.locator('.preview-box').textContent()).toContain(edited);
    await card.getByRole('button', { name: 'Save and approve' }).click();
    await page.locator('#live-flash', { hasText: 'Edited and approved' }).waitFor();

    await expect
      .poll(
        async () =>
          (
            await ok<{ answers: Array<{ text: string }> }>(alice.c, 'cqSummarizeAnswers', {
              related_question: firstId,
            })
          ).data.answers.map((a) => a.text),
        { timeout: 15_000 },
      )
      .toContain(edited);
  });

  it('rejects another question with a reason, logged as the owner', async () => {
    const id = (
      await ok<{ query_id: string }>(bob.c, 'cqAskQuestion', {
        question: 'What did IBM announce about quantum computing?',
        peers: ['olivia'],
      })
    ).data.query_id;
    const card = page.locator(`#q-${id}`);
    await card.waitFor({ timeout: 15_000 });
    await card.getByText('Reject', { exact: true }).first().click();
    await card.getByLabel(/Reason/).fill('Not for bob yet.');
    await card.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#live-flash', { hasText: 'Rejected: nothing was sent.' }).waitFor();
    const listed = await ok<
      Record<string, { status: string; decision: { decided_by: string; reason: string } }>
    >(owner.c, 'cqListRequestedQueries');
    expect(listed.data[id]!.status).toBe('rejected');
    expect(listed.data[id]!.decision.decided_by).toBe('manual:@olivia');
    expect(listed.data[id]!.decision.reason).toContain('Not for bob yet.');
  });

  it('shows the asker, the cited passages and why it waits, and approves from the keyboard (j, e, a)', async () => {
    const id = (
      await ok<{ query_id: string }>(alice.c, 'cqAskQuestion', {
        question: 'What threshold did quantum error correction cross?',
        peers: ['olivia'],
      })
    ).data.query_id;
    const card = page.locator(`#q-${id}`);
    await card.waitFor({ timeout: 15_000 });
    await card.locator('details.asker summary').click();
    await expect.poll(() => card.locator('details.asker').textContent()).toContain('not a connection');
    expect(await card.locator('details.asker .untrusted').textContent()).toContain('Professor of physics.');
    await card.locator('.draft details summary').click();
    expect(await card.locator('.citations blockquote').first().textContent()).not.toBe('');
    expect(await card.locator('.why').textContent()).toMatch(/Waiting because:/);
    await card.locator('.draft details summary').click();
    await card.locator('details.asker summary').click();
    await shot('inbox-details');

    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('j');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`q-${id}`);
    await page.keyboard.press('e');
    expect(await card.locator('details.edit').getAttribute('open')).not.toBeNull();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
    // Typing in the answer is typing, not shortcuts.
    const before = await card.locator('textarea').inputValue();
    await page.keyboard.press('a');
    expect((await card.locator('textarea').inputValue()).length).toBe(before.length + 1);
    const still = await ok<Record<string, { status: string }>>(owner.c, 'cqListRequestedQueries');
    expect(still.data[id]?.status).toBe('pending');
    await card.getByText('Edit, then approve').click();
    await card.focus();
    await page.keyboard.press('a');
    await page.locator('#live-flash', { hasText: 'Approved: the answer is on its way.' }).waitFor();
    const listed = await ok<Record<string, { status: string; decision: { decided_by: string } }>>(
      owner.c,
      'cqListRequestedQueries',
    );
    expect(listed.data[id]).toMatchObject({ status: 'accepted', decision: { decided_by: 'manual:@olivia' } });
  });

  it('adds a condition with a live preview, sees it in the list and the decision log, and removes it', async () => {
    await page.getByRole('link', { name: 'Conditions' }).click();
    await page.getByRole('heading', { name: 'Conditions', level: 1 }).waitFor();
    await page
      .getByLabel('New condition, in plain words')
      .fill('Accept queries related to programming from any user');
    await expect.poll(() => page.locator('#cond-preview').textContent()).toContain('programming');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.locator('#conditions', { hasText: 'Accept queries related to programming' }).waitFor();
    await expect.poll(() => page.locator('#decision-log').textContent()).toContain('Not for bob yet.');
    await page.getByLabel('Decided').selectOption('manual');
    await page.getByLabel('Asker').selectOption('bob');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/kind=manual/);
    expect(await page.locator('#decision-log tbody tr').count()).toBe(1);
    expect(await page.locator('#decision-log tbody').textContent()).toContain('Not for bob yet.');
    await page.getByLabel('Decided').selectOption('automatic');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/kind=automatic/);
    await page.getByText('No decisions match.').waitFor();
    await page.goto(url('/console/conditions'));
    await shot('conditions');
    await page
      .getByRole('button', { name: /Remove condition: Accept queries related to programming/ })
      .click();
    await page.getByText('Condition removed.').waitFor();
    expect(await page.locator('#conditions').count()).toBe(0);
    const conds = await ok<{ conditions: string[] }>(owner.c, 'cqListAutoApprovalConditions');
    expect(conds.data.conditions).toEqual([]);
  });

  it('uploads a PDF with the file picker and finds it in search', async () => {
    await page.getByRole('link', { name: 'Knowledge' }).click();
    const pdf = makePdf([
      ['Sourdough bread is leavened by a starter of wild yeast and lactic acid bacteria.'],
      ['Feed the starter with flour and water every day; bake when it doubles within six hours.'],
    ]);
    await page
      .getByLabel(/File \(text, Markdown/)
      .setInputFiles({ name: 'sourdough.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.locator('#sources', { hasText: 'sourdough.pdf' }).waitFor();
    await expect.poll(() => page.locator('#sources').textContent()).toContain('2 p.');
    await page.getByLabel('Question', { exact: true }).fill('How often should I feed the sourdough starter?');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#search-results .draws', { hasText: 'sourdough.pdf' }).waitFor();
    await shot('knowledge');
  });

  it('uploads by drag and drop with a progress bar', async () => {
    await page.evaluate(() => {
      const bar = document.querySelector('form[data-upload] progress') as HTMLProgressElement;
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => seen.push(`${bar.hidden ? 'hidden' : 'shown'}:${bar.value}`)).observe(bar, {
        attributes: true,
      });
    });
    const body = `# Bees\n\n${'Honey bees dance to tell the hive where the flowers are. '.repeat(400)}`;
    const dt = await page.evaluateHandle((text) => {
      const d = new DataTransfer();
      d.items.add(new File([text], 'bees.md', { type: 'text/markdown' }));
      return d;
    }, body);
    await page.dispatchEvent('form[data-upload]', 'dragover', { dataTransfer: dt });
    expect(await page.locator('form[data-upload]').getAttribute('class')).toContain('over');
    await page.dispatchEvent('form[data-upload]', 'drop', { dataTransfer: dt });
    await page.locator('#sources', { hasText: 'bees.md' }).waitFor();
    await page.locator('#live-flash', { hasText: 'Added bees.md' }).waitFor();
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen).toContain('shown:100');
    expect(seen.at(-1)).toMatch(/^hidden/);
    const listed = await ok<{ sources: Array<{ name: string; characters: number }> }>(
      owner.c,
      'listKnowledgeSources',
    );
    expect(listed.data.sources.find((x) => x.name === 'bees.md')?.characters).toBeGreaterThan(20_000);
  });

  it("changes a source's sharing, and search says what that means for a draft", async () => {
    const row = page.locator('tr[data-source="sourdough.pdf"]');
    await row.getByLabel('Sharing of sourdough.pdf', { exact: true }).selectOption('manual');
    await row.getByRole('button', { name: 'Save sharing of sourdough.pdf' }).click();
    await page.locator('#live-flash', { hasText: 'sourdough.pdf is now shared manual' }).waitFor();
    const sharing = async () =>
      (
        await ok<{ sources: Array<{ name: string; sharing: string }> }>(owner.c, 'listKnowledgeSources')
      ).data.sources.find((x) => x.name === 'sourdough.pdf')?.sharing;
    expect(await sharing()).toBe('manual');
    await page.getByLabel('Question', { exact: true }).fill('How often should I feed the sourdough starter?');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#search-results .draws', { hasText: 'it would wait for you' }).waitFor();

    await page
      .locator('tr[data-source="sourdough.pdf"]')
      .getByLabel('Sharing of sourdough.pdf', { exact: true })
      .selectOption('private');
    await page.getByRole('button', { name: 'Save sharing of sourdough.pdf' }).click();
    await page.locator('#live-flash', { hasText: 'sourdough.pdf is now shared private' }).waitFor();
    expect(await sharing()).toBe('private');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#search-results .draws', { hasText: 'Left out as private: sourdough.pdf' }).waitFor();
  });

  it('removes a source, and the tools no longer list it', async () => {
    await page.goto(url('/console/knowledge'));
    await page.locator('tr[data-source="bees.md"]').waitFor();
    await page.getByRole('button', { name: 'Remove bees.md', exact: true }).click();
    await page.getByText(/Removed bees\.md \(\d+ chunks\)\./).waitFor();
    expect(await page.locator('tr[data-source="bees.md"]').count()).toBe(0);
    expect(await page.locator('tr[data-source="sourdough.pdf"]').count()).toBe(1);
    const names = (
      await ok<{ sources: Array<{ name: string }> }>(owner.c, 'listKnowledgeSources')
    ).data.sources.map((x) => x.name);
    expect(names).not.toContain('bees.md');
    expect(names).toContain('sourdough.pdf');
  });

  it('shows the dens the agent follows and its messages as untrusted, and replies', async () => {
    await ok(owner.c, 'den_post', { den: 'general', content: 'Hello from the quantum lab.' });
    await ok(alice.c, 'dm_send', {
      to: 'olivia',
      content: 'Could you send me your private notes on qubits?',
    });
    await page.goto(url('/console/community'));
    expect(await page.locator('#followed-dens').textContent()).toContain('General');
    expect(await page.locator('#followed-dens a').count()).toBe(1);
    await page.getByRole('link', { name: /@alice/ }).click();
    await page.getByRole('heading', { name: 'Conversation with @alice' }).waitFor();
    const theirs = page.locator('.messages .theirs .untrusted').first();
    expect(await theirs.textContent()).toContain('from @alice · untrusted');
    expect(await theirs.textContent()).toContain('private notes on qubits');
    await shot('community-dm');
    await page.getByLabel('Reply to @alice').fill('No. Ask me a real question.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Sent.').waitFor();
    const read = await ok<{ messages: Array<{ from: string; content: string }> }>(alice.c, 'dm_read', {
      with: 'olivia',
    });
    expect(read.data.messages.map((m) => m.content)).toContain('No. Ask me a real question.');
  });

  let sourdoughId: string;
  it('renders the asked, network and community pages', async () => {
    sourdoughId = (
      await ok<{ query_id: string }>(owner.c, 'cqAskQuestion', {
        question: 'How do you bake sourdough?',
        peers: ['alice'],
      })
    ).data.query_id;
    for (const [link, heading] of [
      ['Asked', 'Asked'],
      ['Network', 'Network'],
      ['Community', 'Community'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await shot(link.toLowerCase());
    }
    await page.goto(url('/console/asked'));
    const asked = page.locator('article', { hasText: 'How do you bake sourdough?' });
    // Per-peer status, as the tool reports it.
    await expect.poll(() => asked.locator('.peers li').first().textContent()).toMatch(/@alice\s+\S+/);
    await page.goto(url('/console/network'));
    expect(await page.locator('#services').textContent()).toContain('approvals');
    expect(await page.locator('section[aria-labelledby="agents-h"] tbody').textContent()).toContain('@alice');
    expect(await page.locator('#tools-h').textContent()).toMatch(/Tool catalog \((\d{2,})\)/);
    // A phone's width, in the dark: the same pages, nothing cut off sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(url('/console/conditions'));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('conditions-phone-dark');
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it("shows a peer's approved answer on the asked page, and summarizes the answers", async () => {
    const answer =
      'Feed the starter the night before, mix the dough in the morning and bake it in a very hot oven.';
    // Alice has nothing on sourdough: she writes the answer herself, then approves it.
    await expect
      .poll(
        async () =>
          (await ok<Record<string, { status: string }>>(alice.c, 'cqListRequestedQueries')).data[sourdoughId]
            ?.status,
        { timeout: 15_000 },
      )
      .toBe('no-knowledge');
    await ok(alice.c, 'cqUpdateEditAnswer', { query_id: sourdoughId, new_answer: answer });
    await ok(alice.c, 'cqAcceptQuery', { id: sourdoughId });
    await page.goto(url('/console/asked'));
    const asked = page.locator(`#asked-${sourdoughId}`);
    await expect
      .poll(
        async () => {
          await page.reload();
          return asked.locator('section.answer').count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    const block = asked.getByRole('region', { name: 'Answer from @alice' });
    expect(await block.locator('.untrusted').textContent()).toContain(answer);
    expect(await block.textContent()).toContain('revision');
    await asked.getByRole('button', { name: 'Summarize the answers' }).click();
    const summary = asked.locator(`#summary-${sourdoughId} .preview-box`);
    await summary.waitFor();
    expect(await summary.textContent()).toContain('@alice: Feed the starter the night before');
    expect(await summary.textContent()).toContain('Summarized by');
    expect(await summary.textContent()).not.toContain('No answers to summarize yet.');
    await shot('asked-answers');
  });

  it('lists the docs corpora and ingests one for the operator, with progress that updates live', async () => {
    const folder = join(dir.path, 'handbook');
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < 40; i++)
      writeFileSync(
        join(folder, `chapter-${i}.md`),
        `# Chapter ${i}\n\n${`The lighthouse keeper logs ship number ${i} at dusk. `.repeat(60)}`,
      );
    await page.goto(url('/console/network'));
    await page.getByRole('heading', { name: /Documentation corpora \(0 documents/ }).waitFor();
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { states: string[] }).states = seen;
      new MutationObserver(() => {
        const j = document.getElementById('ingest-job');
        const st = j?.getAttribute('data-state');
        if (st && seen.at(-1) !== st) seen.push(st);
      }).observe(document.querySelector('form[action="/console/network/ingest"]')!, {
        subtree: true,
        childList: true,
        attributes: true,
      });
    });
    await page.getByLabel(/Folders, files or URLs/).fill(folder);
    await page.getByLabel(/Corpus name/).fill('handbook');
    await page.getByRole('button', { name: 'Ingest' }).click();
    await page.locator('#ingest-job[data-state="done"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#ingest-job').textContent()).toContain('Ingested "handbook": 40 added');
    expect(await page.evaluate(() => (window as unknown as { states: string[] }).states)).toEqual([
      'running',
      'done',
    ]);
    expect(await page.locator('#corpora tr[data-corpus="handbook"]').textContent()).toContain('40');
    await shot('network-corpora');
    const listed = await ok<{ corpora: Array<{ source: string; documents: number }> }>(
      owner.c,
      'docs_corpora',
    );
    expect(listed.data.corpora).toEqual([expect.objectContaining({ source: 'handbook', documents: 40 })]);
    // Another agent sees the corpora but has no ingest form, and the tool refuses it.
    const r = await alice.c.callTool({ name: 'docs_ingest', arguments: { inputs: [folder] } });
    expect(r.isError).toBe(true);
  });

  const LONG_CONDITION =
    'Accept questions about quantum error correction, surface codes, logical qubit fidelity, decoherence times and ' +
    'cryogenic control electronics from academic users at universities or national laboratories';
  const LONG_FILE = 'quarterly-report-of-the-superconducting-hardware-working-group-2026-final-revised-v3.md';

  it('holds long real-world content: a long condition, a long question, a long file name', async () => {
    await ok(owner.c, 'cqAddAutoApprovalCondition', { sentence: LONG_CONDITION });
    await ok(owner.c, 'updateKnowledgeSources', {
      file_name: LONG_FILE,
      file_content:
        '# Working group\n\nThe dilution refrigerator reached 9 mK after the wiring was replaced.',
    });
    const id = (
      await ok<{ query_id: string }>(alice.c, 'cqAskQuestion', {
        question:
          'Could you explain what happened to https://example.org/very/long/path/to/a/report/about/superconducting-qubits-and-their-decoherence-times-in-2026 and whether error correction helped?',
        peers: ['olivia'],
      })
    ).data.query_id;
    await expect
      .poll(
        async () =>
          (await ok<Record<string, { status: string }>>(owner.c, 'cqListRequestedQueries')).data[id],
      )
      .toBeTruthy();
  });

  it('fits every page in 390 px with long content, and keeps the knowledge table’s actions in view', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const wide: string[] = [];
    for (const p of [
      'inbox',
      'conditions',
      'knowledge',
      'asked',
      'network',
      'community',
      'community/dm/alice',
    ]) {
      await page.goto(url(`/console/${p}`));
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      if (scroll > 390) wide.push(`${p} is ${scroll}px wide`);
    }
    await page.goto(url('/console/conditions'));
    await page
      .getByLabel('Condition')
      .selectOption({ index: 1 })
      .catch(() => {});
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.goto(url('/console/knowledge'));
    const remove = page.getByRole('button', { name: `Remove ${LONG_FILE}`, exact: true });
    const box = (await remove.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await shot('knowledge-phone');
    await page.goto(url('/console/conditions'));
    await shot('conditions-phone');
    expect(wide).toEqual([]);
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('passes the axe accessibility rules on every page, light and dark, wide and at a phone width', async () => {
    const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const pages = ['inbox', 'conditions', 'knowledge', 'asked', 'network', 'community', 'community/dm/alice'];
    const found: string[] = [];
    for (const [width, scheme] of [
      [1100, 'light'],
      [1100, 'dark'],
      [390, 'dark'],
      [390, 'light'],
    ] as const) {
      await page.setViewportSize({ width, height: 844 });
      await page.emulateMedia({ colorScheme: scheme });
      for (const p of pages) {
        await page.goto(url(`/console/${p}`));
        // Evaluated by the test harness, not by the page: the console's CSP still allows no inline script.
        await page.evaluate(axeSource);
        const violations = await page.evaluate(async () => {
          const r = await (
            window as unknown as {
              axe: {
                run(
                  ctx: Document,
                  o: object,
                ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }>;
              };
            }
          ).axe.run(document, {
            runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] },
          });
          return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        });
        found.push(...violations.map((v) => `${p} (${width}px, ${scheme}) ${v}`));
        const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
        if (scroll > width) found.push(`${p} (${width}px, ${scheme}) is ${scroll}px wide`);
      }
      if (width === 390) {
        await page.goto(url('/console/inbox'));
        await shot(`inbox-phone-${scheme}`);
      }
    }
    expect(found).toEqual([]);
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  }, 240_000);

  it('removes the long condition again', async () => {
    await ok(owner.c, 'cqRemoveAutoApprovalCondition', { condition: LONG_CONDITION });
  });

  it('refuses a wrong key, a missing CSRF token and a foreign Origin', async () => {
    const fresh = await browser.newContext();
    const p = await fresh.newPage();
    await p.goto(url('/console/sign-in'));
    await p.getByLabel('API key').fill('lore_sk_not_a_real_key_at_all_000000000000');
    const [wrong] = await Promise.all([
      p.waitForResponse((r) => r.url().endsWith('/console/sign-in') && r.request().method() === 'POST'),
      p.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    expect(wrong.status()).toBe(401);
    await p.getByText('That key does not belong to any agent here.').waitFor();
    await p.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
    const signInViolations = await p.evaluate(async () =>
      (
        await (
          window as unknown as { axe: { run(d: Document): Promise<{ violations: Array<{ id: string }> }> } }
        ).axe.run(document)
      ).violations.map((v) => v.id),
    );
    expect(signInViolations).toEqual([]);
    await fresh.close();

    const cookie = (await context.cookies()).find((c) => c.name === 'lore_console')!;
    const headers = {
      cookie: `lore_console=${cookie.value}`,
      'content-type': 'application/x-www-form-urlencoded',
    };
    const noCsrf = await fetch(url('/console/conditions'), {
      method: 'POST',
      headers: { ...headers, origin: http.url },
      body: 'sentence=Accept+everything+from+anyone',
    });
    expect(noCsrf.status).toBe(403);
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const foreign = await fetch(url('/console/conditions'), {
      method: 'POST',
      headers: { ...headers, origin: 'https://evil.example' },
      body: `_csrf=${csrf}&sentence=Accept+everything+from+anyone`,
    });
    expect(foreign.status).toBe(403);
    const sameSite = await fetch(url('/console/conditions'), {
      method: 'POST',
      headers: { ...headers, origin: http.url },
      body: `_csrf=${csrf}&sentence=Reject+queries+about+sourdough`,
      redirect: 'manual',
    });
    expect(sameSite.status).toBe(303);
    const conds = await ok<{ conditions: string[] }>(owner.c, 'cqListAutoApprovalConditions');
    expect(conds.data.conditions).toEqual(['Reject queries about sourdough']);
  });

  it('signs out, and the same cookie replayed afterwards is refused', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'lore_console')!;
    await page.goto(url('/console/inbox'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect((await context.cookies()).find((c) => c.name === 'lore_console')).toBeUndefined();
    const replay = await fetch(url('/console/inbox'), {
      headers: { cookie: `lore_console=${cookie.value}`, accept: 'text/html' },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/console/sign-in');
  });

  it('never broke the Content Security Policy on any page or swap, in any test above', async () => {
    const seen = cspErrors.length;
    expect(cspErrors).toEqual([]);
    // The guard itself: an inline style, which the policy refuses, is reported and caught here.
    await page.goto(url('/console/inbox'));
    await page.evaluate(() => {
      const s = document.createElement('style');
      s.textContent = 'body{outline:1px solid red}';
      document.head.append(s);
    });
    await expect.poll(() => cspErrors.length).toBe(seen + 1);
  });
});
