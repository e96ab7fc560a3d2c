export { markdownBlocks } from './blocks.js';
export { excerpt } from './excerpt.js';
export {
  DEFAULT_MIN_MATCHES,
  DEFAULT_RARE_SHARE,
  ftsPhrase,
  ftsSplitExpressions,
  mergeSplitRankings,
  type RankedRow,
  rankSplitTerms,
  rareOnlyExpressions,
  splitTermsByFrequency,
  type TermSplit,
  type TermSplitOptions,
} from './fts.js';
export { FTS_TOKENIZER, stemmedMatchQuery, stemmedTerms } from './fts-index.js';
export { type FusedHit, fuseRankings, type SignalRanking } from './fusion.js';
export { GENERIC_STEMS, GENERIC_WEIGHT, questionWordWeight } from './generic.js';
export { keywords } from './keywords.js';
export {
  bm25Idf,
  EXPANSION_WEIGHT,
  FIELD_BLEND,
  FIELD_WEIGHTS,
  groupByPage,
  pathWords,
  type RankFields,
  type RankQuery,
  type RankTerm,
  rankFields,
  rankQuery,
  rerankBlend,
  SECOND_PASSAGE_SHARE,
} from './rank.js';
export {
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  type DocumentChunk,
  type SplitOptions,
  splitDocument,
} from './split.js';
export { STEMMER_VERSION, singular, stem, stemmedText } from './stem.js';
export {
  expansionWords,
  identifierParts,
  SYNONYM_GROUPS,
  synonymsOf,
  versionedNames,
  withIdentifierParts,
} from './synonyms.js';
export { ftsMatchQuery, isContentTerm, queryTerms, STOP_WORDS, tokenize } from './terms.js';
export { cosine, cosineTopK, float32FromBuffer, float32ToBuffer, reciprocalRankFusion } from './vector.js';
export { VectorMatrix } from './vector-matrix.js';
export {
  type NearestOptions,
  nearestSql,
  similarityOfSql,
  similaritySql,
  vectorColumnType,
  vectorParam,
} from './vector-sql.js';
