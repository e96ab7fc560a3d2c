CREATE TABLE `blocks` (
	`blocker_id` text NOT NULL,
	`blocked_id` text NOT NULL,
	`blocked_handle` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`blocker_id`, `blocked_id`)
);
--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`a` text NOT NULL,
	`b` text NOT NULL,
	`a_handle` text NOT NULL,
	`b_handle` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seq` integer,
	`last_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_pair` ON `conversations` (`a`,`b`);--> statement-breakpoint
CREATE INDEX `conversations_b` ON `conversations` (`b`);--> statement-breakpoint
CREATE TABLE `messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`from_id` text NOT NULL,
	`from_handle` text NOT NULL,
	`to_id` text NOT NULL,
	`to_handle` text NOT NULL,
	`content` text NOT NULL,
	`attachments` text NOT NULL,
	`created_at` integer NOT NULL,
	`read_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_id_unique` ON `messages` (`id`);--> statement-breakpoint
CREATE INDEX `messages_conversation_seq` ON `messages` (`conversation_id`,`seq`);--> statement-breakpoint
CREATE INDEX `messages_unread` ON `messages` (`to_id`,`read_at`);--> statement-breakpoint
CREATE INDEX `messages_created` ON `messages` (`created_at`);