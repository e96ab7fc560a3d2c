ALTER TABLE `chunks` ADD `embedding_model` text;--> statement-breakpoint
CREATE INDEX `chunks_embedding_model` ON `chunks` (`embedding_model`);