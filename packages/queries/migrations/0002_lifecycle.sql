ALTER TABLE `answers` ADD `written_by_owner` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `question_peers` ADD `reason` text;--> statement-breakpoint
ALTER TABLE `received_queries` ADD `source_citations` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `received_queries` ADD `written_by_owner` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `received_queries` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `received_queries` ADD `next_attempt_at` integer;--> statement-breakpoint
ALTER TABLE `received_queries` ADD `retry_until` integer;--> statement-breakpoint
ALTER TABLE `received_queries` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `received_queries` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `received_due` ON `received_queries` (`next_attempt_at`);