CREATE TABLE `lore_inbox` (
	`consumer` text NOT NULL,
	`event_id` text NOT NULL,
	`handled_at` integer NOT NULL,
	PRIMARY KEY(`consumer`, `event_id`)
);
--> statement-breakpoint
CREATE TABLE `lore_outbox` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`subject` text NOT NULL,
	`envelope` text NOT NULL,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	`attempts` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lore_outbox_id_unique` ON `lore_outbox` (`id`);--> statement-breakpoint
CREATE INDEX `lore_outbox_unsent` ON `lore_outbox` (`seq`) WHERE sent_at is null;