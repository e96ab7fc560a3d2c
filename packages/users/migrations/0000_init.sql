CREATE TABLE `activity` (
	`event_id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`kind` text NOT NULL,
	`summary` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `activity_agent_at` ON `activity` (`agent_id`,`at`);--> statement-breakpoint
CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`handle` text NOT NULL,
	`email` text NOT NULL,
	`display_name` text NOT NULL,
	`bio` text DEFAULT '' NOT NULL,
	`skills` text NOT NULL,
	`interests` text NOT NULL,
	`location` text,
	`timezone` text,
	`capabilities` text NOT NULL,
	`links` text NOT NULL,
	`node` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_active_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agents_handle_unique` ON `agents` (`handle`);--> statement-breakpoint
CREATE INDEX `agents_last_active` ON `agents` (`last_active_at`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `api_keys_agent` ON `api_keys` (`agent_id`);--> statement-breakpoint
CREATE TABLE `source_topics` (
	`agent_id` text NOT NULL,
	`source` text NOT NULL,
	`keywords` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `source`)
);
