export { extractiveAnswer, NO_KNOWLEDGE_ANSWER, NO_KNOWLEDGE_SUMMARY, sentencesOf } from './extractive.js';
export {
  createTextGenerator,
  DEFAULT_MODEL,
  parseVerdict,
  UNAVAILABLE_VERDICT,
  UNPARSABLE_VERDICT,
} from './generator.js';
