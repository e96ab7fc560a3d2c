ALTER TABLE `chunks` ADD `vector` F32_BLOB(384);--> statement-breakpoint
UPDATE `chunks` SET `embedding` = NULL, `embedding_model` = NULL WHERE `embedding_model` LIKE 'all-MiniLM-L6-v2@%';
