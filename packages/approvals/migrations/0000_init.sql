CREATE TABLE `conditions` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`sentence` text NOT NULL,
	`sentence_key` text NOT NULL,
	`effect` text NOT NULL,
	`interpretation` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conditions_agent_sentence` ON `conditions` (`agent_id`,`sentence_key`);--> statement-breakpoint
CREATE INDEX `conditions_agent` ON `conditions` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `decisions` (
	`id` text PRIMARY KEY NOT NULL,
	`query_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`recipient_handle` text NOT NULL,
	`asker_handle` text NOT NULL,
	`kind` text NOT NULL,
	`outcome` text NOT NULL,
	`decided_by` text NOT NULL,
	`condition` text,
	`reason` text NOT NULL,
	`checks` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `decisions_query_kind` ON `decisions` (`query_id`,`recipient_id`,`kind`);--> statement-breakpoint
CREATE INDEX `decisions_recipient` ON `decisions` (`recipient_id`,`at`);