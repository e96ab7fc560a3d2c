ALTER TABLE `source_topics` ADD `sharing` text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE `source_topics` ADD `summary` text DEFAULT '' NOT NULL;