ALTER TABLE `sources` ADD `sharing` text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `summary` text DEFAULT '' NOT NULL;