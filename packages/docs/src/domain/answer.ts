import type { GenerateResult, Passage, SamplingPort, TextGenerator } from '@lore/kit';
import type { SQL } from 'drizzle-orm';
import { withCodeBlocks } from './code-blocks.js';
import type { DocsSearch } from './search.js';
import type { ChunkHit } from './store.js';

/** Chunks retrieved as passages for an answer, and most chunks per document among them. */
export const ANSWER_PASSAGES = 8;
export const PASSAGES_PER_DOCUMENT = 3;

export const NOTHING_FOUND =
  'The documentation has nothing matching this question. Try search_documents with other words.';

export interface DocsAnswer {
  answerText: string;
  references: string[];
  strategy: GenerateResult['strategy'];
  model?: string;
  /** For each reference, the signals that found its passages (words, meaning). */
  foundBy?: Record<string, Array<'words' | 'meaning'>>;
}

/** The best chunks as passages: a few per document, each headed by where it sits. */
export function passagesFor(hits: ChunkHit[]): Passage[] {
  const perDoc = new Map<string, number>();
  const passages: Passage[] = [];
  for (const h of hits) {
    const n = perDoc.get(h.document) ?? 0;
    if (n >= PASSAGES_PER_DOCUMENT || passages.length >= ANSWER_PASSAGES) continue;
    perDoc.set(h.document, n + 1);
    // A heading line: context for a model, skipped by the extractive answer.
    const where = [h.title, ...h.headingPath.filter((x) => x !== h.title)].join(' › ');
    passages.push({
      id: `${h.document}#chunk_${h.ordinal}`,
      source: h.document,
      text: `# ${where}\n\n${h.text}`,
      score: h.score,
    });
  }
  return passages;
}

/**
 * Retrieves passages for a question and has the text generator answer from them (endpoint,
 * the client's model through `sampling`, or extraction); the answer cites documents.
 */
export async function answerFromDocs(
  ports: { search: DocsSearch; textgen: TextGenerator },
  question: string,
  opts: { sampling?: SamplingPort | undefined; signal?: AbortSignal; filter?: SQL | null },
): Promise<DocsAnswer> {
  const page = await ports.search.search({
    query: question,
    filter: opts.filter ?? null,
    offset: 0,
    limit: ANSWER_PASSAGES * 2,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const passages = passagesFor(page.hits);
  if (!passages.length) return { answerText: NOTHING_FOUND, references: [], strategy: 'extractive' };
  const result = await ports.textgen.generate(
    { task: 'answer', question, passages, detailed: true },
    {
      ...(opts.sampling ? { sampling: opts.sampling } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  );
  const cited = citeDocuments(result.text, result.citations);
  const { references } = cited;
  // Sentences that introduce a command or a file come back with it, line breaks and all.
  const text = withCodeBlocks(
    cited.text,
    page.hits.filter((h) => references.includes(h.document)).map((h) => h.text),
  );
  const legend = references.map((name, i) => `[${i + 1}] ${name}`);
  const foundBy: Record<string, Array<'words' | 'meaning'>> = {};
  for (const name of references) {
    const signals = new Set(page.hits.filter((h) => h.document === name).flatMap((h) => h.foundBy));
    foundBy[name] = (['words', 'meaning'] as const).filter((s) => signals.has(s));
  }
  return {
    answerText: legend.length ? `${text}\n\nReferences:\n${legend.join('\n')}` : text,
    references,
    strategy: result.strategy,
    ...(result.model ? { model: result.model } : {}),
    ...(references.length ? { foundBy } : {}),
  };
}

/**
 * The generator numbers its citations per passage; the answer cites documents: `[n]` becomes
 * the number of the cited document in `references` (first cited, first numbered).
 */
export function citeDocuments(
  text: string,
  citations: Array<{ source: string }>,
): { text: string; references: string[] } {
  const references: string[] = [];
  const number = (n: number): number | null => {
    const source = citations[n - 1]?.source;
    if (!source) return null;
    let k = references.indexOf(source);
    if (k < 0) k = references.push(source) - 1;
    return k + 1;
  };
  const renumbered = text.replace(/\[(\d+(?:\s*,\s*\d+)*)\]/g, (whole, list: string) => {
    const nums = [...new Set(list.split(',').map((x) => number(Number(x.trim()))))].filter(
      (x): x is number => x !== null,
    );
    return nums.length ? `[${nums.join(', ')}]` : whole;
  });
  // Neighbouring markers that now name the same document read as one.
  return { text: renumbered.replace(/(\[[\d, ]+\])(\s*\1)+/g, '$1'), references };
}
