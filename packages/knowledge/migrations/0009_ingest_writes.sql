-- `chunks_agent_model` (agent_id, embedding_model) answers every lookup by agent alone as well:
-- `chunks_agent` only cost a b-tree insert for every chunk written.
DROP INDEX IF EXISTS `chunks_agent`;
--> statement-breakpoint
-- FTS5 merges its segments once 8 of a level exist instead of 4: each source's commit writes a
-- segment, and merging every 4 cost a quarter of the FTS inserts' time (raw FTS5, sources of 100
-- rows: 26–27k rows/s against 19–21k) for a search no slower (BENCHMARKS.md, "Ingest writes").
INSERT INTO `chunks_fts`(`chunks_fts`, `rank`) VALUES ('automerge', 8);
