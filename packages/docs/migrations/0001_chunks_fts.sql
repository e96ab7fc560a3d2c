-- Full-text index over chunks: the chunk text, its document's title and its heading path.
-- Contentless (the text lives in `chunks`); rowid = chunks.id; rows are deleted by rowid.
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(
	`text`,
	`title`,
	`heading`,
	content='',
	contentless_delete=1,
	tokenize='porter unicode61 remove_diacritics 2'
);
