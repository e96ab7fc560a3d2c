-- The question index now holds Lore's stems (`stemmedText` of @lore/search) and its tokenizer no
-- longer stems (no `porter`), as every Lore FTS5 table (@lore/search's FTS_TOKENIZER). The table is
-- recreated empty; the service rewrites it from `questions` in the background at start
-- (`reindexQuestions`) when it is empty and questions exist.
DROP TABLE `questions_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `questions_fts` USING fts5(`question`, `question_id` UNINDEXED, `asker_id` UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
