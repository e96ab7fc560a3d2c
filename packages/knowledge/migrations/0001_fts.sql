-- Full-text indexes (FTS5, BM25). Contentless: the text lives in `chunks` / `articles`, and the
-- indexed columns hold the light-stemmed terms written by src/domain/search-terms.ts, so the
-- search side and the index agree on what a term is. `agent` is one token per agent, so a
-- column filter keeps each agent's search inside its own chunks (bm25 weight 0).
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(agent, terms, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE VIRTUAL TABLE `articles_fts` USING fts5(title, tags, summary, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
