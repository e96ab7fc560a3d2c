-- Full-text index over the questions asked on this node, for cqSummarizeAnswers' best match.
CREATE VIRTUAL TABLE `questions_fts` USING fts5(`question`, `question_id` UNINDEXED, `asker_id` UNINDEXED, tokenize = 'porter unicode61');
