-- Vectors of the questions asked here, for finding the asked question a summary belongs to (cqSummarizeAnswers' related_question) by meaning; ids are <asker id><US><question id>.
-- One row per item: the vector of its text (libSQL's native F32_BLOB, searched with
-- vector_distance_cos), the model that made it and a hash of the text it was made from; a row of
-- another model or text is stale and re-embedded in the background (TextVectors in @lore/kit).
-- The dimension is not fixed here: it is the model's (384 for the local all-MiniLM-L6-v2), and
-- every search compares only vectors of one model.
CREATE TABLE `question_vectors` (
	`id` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`hash` text NOT NULL,
	`vector` F32_BLOB NOT NULL
);
