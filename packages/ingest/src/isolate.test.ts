import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { compressionBombPdf, deeplyNestedHtml } from '@lore/kit/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { htmlToMarkdown } from './html.js';
import {
  convertHtml,
  NORMAL_PRIORITY_CPU_MS,
  ParserPool,
  pdfToText,
  runIsolated,
  streamIsolated,
  taskModule,
  threadCpuMs,
} from './isolate.js';
import {
  checkMarkdownNesting,
  DEFAULT_PARSE_LIMITS,
  htmlNestingDepth,
  markdownNestingDepth,
  ParseLimitError,
} from './limits.js';

// 1.5 s of the parser thread's CPU; a thread starved on a busy machine has 8 s of wall-clock time.
const pool = new ParserPool({ ...DEFAULT_PARSE_LIMITS, timeMs: 1_500, wallMs: 8_000, memoryMb: 128 });
afterAll(() => pool.close());

describe('htmlNestingDepth', () => {
  it('counts element nesting, not void elements, comments or auto-closed siblings', () => {
    expect(htmlNestingDepth('<div><p>a<p>b<br><img src=x><ul><li>c<li>d</ul></div>')).toBe(2);
    expect(htmlNestingDepth('<!-- <div><div> --><span/>')).toBe(0);
    expect(htmlNestingDepth(deeplyNestedHtml(1000))).toBe(1002);
    expect(htmlNestingDepth(deeplyNestedHtml(1000), 10)).toBe(11);
  });
});

describe('parsing hostile documents in parser threads', () => {
  it('refuses 40,000 nested divs by their nesting, in the calling thread and in a worker', async () => {
    expect(() => htmlToMarkdown(deeplyNestedHtml())).toThrow(ParseLimitError);
    const err = await convertHtml(deeplyNestedHtml(), pool).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseLimitError);
    expect((err as ParseLimitError).limit).toBe('nesting');
    expect((err as Error).message).toMatch(/more than 256 deep/);
  });

  it('still converts ordinary pages in a worker', async () => {
    const { title, markdown } = await convertHtml('<title>T</title><h1>Head</h1><p>Body <b>x</b></p>', pool);
    expect(title).toBe('T');
    expect(markdown).toBe('# Head\n\nBody **x**');
  });

  it('refuses a PDF with more pages than the cap before reading them', async () => {
    const small = new ParserPool({ ...DEFAULT_PARSE_LIMITS, maxPages: 3 });
    try {
      const err = await pdfToText(compressionBombPdf({ inflatedMb: 1, pages: 5 }), small).catch((e) => e);
      expect(err).toBeInstanceOf(ParseLimitError);
      expect((err as ParseLimitError).limit).toBe('pages');
    } finally {
      await small.close();
    }
  });

  // The full measurement (two 64 MB bombs, other agents' latency) is packages/knowledge/test/ingest-bomb.test.ts.
  it('refuses a compression bomb by time, memory or its text while the event loop stays responsive', async () => {
    const bomb = compressionBombPdf({ inflatedMb: 16, pages: 20 });
    expect(bomb.byteLength).toBeLessThan(400_000);
    // What the machine itself does to this event loop (other suites share the cores): a window
    // of the same loop with nothing parsing, measured just before.
    const quiet = monitorEventLoopDelay({ resolution: 10 });
    quiet.enable();
    await new Promise((r) => setTimeout(r, 1_000));
    quiet.disable();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const results = await Promise.allSettled([pdfToText(bomb, pool), pdfToText(bomb, pool)]);
    delay.disable();
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(ParseLimitError);
      // Each page shows the whole 16 MB stream: 5.6 million characters, over the page's text limit.
      expect(['time', 'memory', 'size']).toContain((err as ParseLimitError).limit);
    }
    // Milliseconds of event-loop delay at the 99th percentile while two bombs were parsed: under
    // 100 ms more than the same loop shows with nothing parsing (on a quiet machine, a few ms).
    expect(delay.percentile(99) / 1e6).toBeLessThan(100 + quiet.percentile(99) / 1e6);
    // The pool replaced its threads and parses again.
    const ok = await convertHtml('<p>after</p>', pool);
    expect(ok.markdown).toBe('after');
  }, 60_000);
});

describe('Markdown nesting', () => {
  it('counts block quotes and list indentation, and stops past the bound', () => {
    expect(markdownNestingDepth('# Title\n\nplain text\n')).toBe(0);
    expect(markdownNestingDepth('- a\n  - b\n    - c\n> quote\n> > nested\n')).toBe(3);
    expect(markdownNestingDepth(`${'>'.repeat(5000)} deep\n`)).toBe(5000);
    expect(markdownNestingDepth(`${'> '.repeat(5000)}deep`, 300)).toBe(5000);
    expect(markdownNestingDepth(nestedList(3000), 256)).toBe(257);
    expect(() => checkMarkdownNesting(nestedList(300), 256)).toThrow(/more than 256 deep/);
    expect(() => checkMarkdownNesting(nestedList(200), 256)).not.toThrow();
  });
});

describe('task modules in parser threads', () => {
  const module = taskModule(import.meta.url, { source: './limits.ts', built: './text.js' });

  it("runs a module's export in a thread and hands its limit errors back", async () => {
    expect(await runIsolated(module, 'markdownNestingDepth', ['- a\n  - b\n'], pool)).toBe(2);
    const err = await runIsolated(module, 'checkMarkdownNesting', [nestedList(1000), 256], pool).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ParseLimitError);
    expect((err as ParseLimitError).limit).toBe('nesting');
    const missing = await runIsolated(module, 'noSuchExport', [], pool).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/exports no function noSuchExport/);
  });
});

describe('task modules that send parts', () => {
  const busy = new URL('../test/fixtures/busy.ts', import.meta.url).href;

  it('hands each part over in order before the result, and none after an error', async () => {
    const parts: number[] = [];
    expect(await streamIsolated(busy, 'count', [5, false], (p: number) => parts.push(p), pool)).toBe(5);
    expect(parts).toEqual([0, 1, 2, 3, 4]);
    const failed: number[] = [];
    const err = await streamIsolated(busy, 'count', [3, true], (p: number) => failed.push(p), pool).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/failed after 3 parts/);
    expect(failed).toEqual([0, 1, 2]);
    // A task without parts gets no sending function: its arguments are as given.
    const plain = await runIsolated(busy, 'count', [2, false], pool).catch((e: unknown) => e);
    expect((plain as Error).message).toMatch(/send is not a function/);
  });
});

describe('idle parsers', () => {
  const osThreads = () => readdirSync('/proc/self/task').length;

  it.each(['thread', 'process'] as const)(
    'end after the idle time, and the next document starts one again (%s)',
    async (isolation) => {
      const idle = new ParserPool(DEFAULT_PARSE_LIMITS, 1, 300, isolation);
      try {
        expect(idle.threads).toBe(0);
        expect((await convertHtml('<p>one</p>', idle)).markdown).toBe('one');
        expect(idle.threads).toBe(1);
        const withParser = isolation === 'thread' ? osThreads() : childProcesses().length;
        await vi.waitFor(() => expect(idle.threads).toBe(0), { timeout: 10_000, interval: 50 });
        // The isolate's OS thread, or the parser process, is gone, not only the pool's record of it.
        await vi.waitFor(
          () =>
            expect(isolation === 'thread' ? osThreads() : childProcesses().length).toBeLessThan(withParser),
          { timeout: 10_000, interval: 50 },
        );
        expect((await convertHtml('<p>two</p>', idle)).markdown).toBe('two');
        expect(idle.threads).toBe(1);
      } finally {
        await idle.close();
      }
    },
  );

  it('stay while documents keep coming within the idle time', async () => {
    const idle = new ParserPool(DEFAULT_PARSE_LIMITS, 1, 1_000);
    try {
      for (const word of ['a', 'b', 'c', 'd']) {
        expect((await convertHtml(`<p>${word}</p>`, idle)).markdown).toBe(word);
        expect(idle.threads).toBe(1);
      }
    } finally {
      await idle.close();
    }
  });

  it('refuses an idle time that is not a positive number, naming it', () => {
    expect(() => new ParserPool(DEFAULT_PARSE_LIMITS, 1, 0)).toThrow(/idleMs/);
    expect(() => new ParserPool(DEFAULT_PARSE_LIMITS, 1, Number.NaN)).toThrow(/idleMs/);
  });
});

describe('the time limit', () => {
  const busy = new URL('../test/fixtures/busy.ts', import.meta.url).href;

  it.runIf(threadCpuMs(Number.parseInt(readFileSync('/proc/thread-self/stat', 'utf8'), 10)) !== undefined)(
    "counts the parser thread's CPU time, with a wall-clock bound for a thread that makes no progress",
    async () => {
      const limited = new ParserPool({ ...DEFAULT_PARSE_LIMITS, timeMs: 500, wallMs: 2_500 });
      try {
        // Waiting 1 s costs no CPU: a thread starved by a busy machine is not refused for it.
        expect(await runIsolated(busy, 'sleep', [1_000], limited)).toBe(1_000);
        const spun = await runIsolated(busy, 'spin', [3_000], limited).catch((e: unknown) => e);
        expect(spun).toBeInstanceOf(ParseLimitError);
        expect((spun as ParseLimitError).limit).toBe('time');
        const stuck = await runIsolated(busy, 'sleep', [10_000], limited).catch((e: unknown) => e);
        expect(stuck).toBeInstanceOf(ParseLimitError);
        expect((stuck as ParseLimitError).limit).toBe('time');
        // The pool replaced the ended threads.
        expect(await runIsolated(busy, 'sleep', [10], limited)).toBe(10);
      } finally {
        await limited.close();
      }
    },
    30_000,
  );
});

describe('priority', () => {
  const busy = new URL('../test/fixtures/busy.ts', import.meta.url).href;
  type Seen = { pid: number; startPriority: number; priority: number; cpuMs: number };

  it.runIf(threadCpuMs(Number.parseInt(readFileSync('/proc/thread-self/stat', 'utf8'), 10)) !== undefined)(
    'a document runs at normal priority for its first 500 ms of CPU, then at the lowest; the next starts normal again',
    async () => {
      const normal = getPriority();
      const prioritized = new ParserPool({ ...DEFAULT_PARSE_LIMITS, timeMs: 20_000 }, 1);
      try {
        // A short document never leaves normal priority.
        const short = (await runIsolated(busy, 'untilLowered', [100], prioritized)) as Seen;
        expect(short.startPriority).toBe(normal);
        expect(short.priority).toBe(normal);
        expect(short.cpuMs).toBeGreaterThanOrEqual(100);
        // A long one is lowered to 19 once it has used 500 ms of CPU (its own count: a few ms
        // short of the pool's, which starts when the task module has loaded), and not before.
        const long = (await runIsolated(busy, 'untilLowered', [10_000], prioritized)) as Seen;
        expect(long.startPriority).toBe(normal);
        expect(long.priority).toBe(19);
        expect(long.cpuMs).toBeGreaterThanOrEqual(NORMAL_PRIORITY_CPU_MS - 50);
        expect(long.cpuMs).toBeLessThan(5_000);
        // The next document starts at normal priority: the parser was raised back (or, where
        // that is not permitted, replaced by a new one).
        const next = (await runIsolated(busy, 'untilLowered', [50], prioritized)) as Seen;
        expect(next.startPriority).toBe(normal);
        expect(next.priority).toBe(normal);
        // Read from outside, the parser process idling between documents is at normal priority.
        expect(getPriority(next.pid)).toBe(normal);
      } finally {
        await prioritized.close();
      }
    },
  );
});

describe('the memory limit', () => {
  const busy = new URL('../test/fixtures/busy.ts', import.meta.url).href;

  it('ends only the parser process whose heap runs out, and the next document gets a new one', async () => {
    const small = new ParserPool(
      { ...DEFAULT_PARSE_LIMITS, memoryMb: 64, timeMs: 20_000 },
      1,
      30_000,
      'process',
    );
    try {
      const others = childProcesses();
      expect(await runIsolated(busy, 'hoard', [1_000], small)).toBe(1_000);
      const before = childProcesses().filter((pid) => !others.includes(pid));
      expect(before).toHaveLength(1);
      // 100 million elements: 800 MB of array for a 64 MB heap (a thread's resourceLimits
      // would let V8 abort this whole process instead).
      const err = await runIsolated(busy, 'hoard', [100_000_000], small).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ParseLimitError);
      expect((err as ParseLimitError).limit).toBe('memory');
      expect(await runIsolated(busy, 'hoard', [10], small)).toBe(10);
      expect(childProcesses()).not.toContain(before[0]);
    } finally {
      await small.close();
    }
  }, 60_000);
});

/** This process's child processes (Linux): the parser processes among them. */
function childProcesses(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) =>
    readFileSync(`/proc/self/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );
}

function nestedList(depth: number): string {
  return Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
}
