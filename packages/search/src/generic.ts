import { stem } from './stem.js';

/**
 * Words that say what kind of answer is wanted rather than what it is about ("latest
 * developments", "explain", "best way", "show me how to make…"). In a question they weigh a
 * quarter as much as its other words, in the knowledge base's relevance test and in the
 * field-aware ranking of every search; they are still searched for.
 */
const GENERIC_WORDS = (
  'latest recent recently new newest current currently today update updates news information info detail details ' +
  'overview explain explanation describe description tell know knowledge think best good better great way ways thing ' +
  'things example examples use used using work works working make get help need want question questions answer topic ' +
  'learn understand guide tips like really much many one two first main key important different difference find give ' +
  'list show state art development developments happen happening going done look looking idea ideas kind type types ' +
  'anyone someone something everything year years time times people'
).split(' ');

/** The stems of the generic question words (as `stem` writes them). */
export const GENERIC_STEMS: ReadonlySet<string> = new Set(GENERIC_WORDS.map(stem));

/** Weight of a generic word beside a question's other words. */
export const GENERIC_WEIGHT = 0.25;

/** A question word's weight by its stem: `GENERIC_WEIGHT` for a generic word, 1 otherwise. */
export const questionWordWeight = (s: string): number => (GENERIC_STEMS.has(s) ? GENERIC_WEIGHT : 1);
