DROP INDEX `decisions_query_kind`;--> statement-breakpoint
ALTER TABLE `decisions` ADD `event_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `decisions_event` ON `decisions` (`event_id`);--> statement-breakpoint
CREATE INDEX `decisions_query` ON `decisions` (`query_id`,`recipient_id`,`at`);