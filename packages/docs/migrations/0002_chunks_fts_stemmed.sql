-- The full-text index now holds Lore's stems (`stemmedText` of @lore/search) and its tokenizer no
-- longer stems (no `porter`): the same scheme as the knowledge index, with @lore/search's
-- FTS_TOKENIZER. The old rows were stemmed by FTS5, so the table is recreated empty and the
-- service rewrites it from `chunks` in the background at start (`reindexChunks`, from the id
-- where it stopped, until `fts_version` is set again).
DROP TABLE `chunks_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(
	`text`,
	`title`,
	`heading`,
	content='',
	contentless_delete=1,
	tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
DELETE FROM `docs_meta` WHERE `key` IN ('fts_version', 'fts_reindexed_to');
