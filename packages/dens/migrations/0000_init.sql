CREATE TABLE `dens` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`category` text NOT NULL,
	`owner_id` text,
	`owner_handle` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dens_slug_unique` ON `dens` (`slug`);--> statement-breakpoint
CREATE TABLE `den_members` (
	`den_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`handle` text NOT NULL,
	`joined_at` integer NOT NULL,
	PRIMARY KEY(`den_id`, `agent_id`)
);
--> statement-breakpoint
CREATE TABLE `posts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`den_id` text NOT NULL,
	`author_id` text NOT NULL,
	`author_handle` text NOT NULL,
	`title` text,
	`content` text NOT NULL,
	`tags` text NOT NULL,
	`attachments` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `posts_id_unique` ON `posts` (`id`);--> statement-breakpoint
CREATE INDEX `posts_den_seq` ON `posts` (`den_id`,`seq`);--> statement-breakpoint
CREATE INDEX `posts_created` ON `posts` (`created_at`);--> statement-breakpoint
CREATE TABLE `prompt_responses` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`prompt_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`handle` text NOT NULL,
	`response` text NOT NULL,
	`attachments` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `prompt_responses_id_unique` ON `prompt_responses` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `prompt_responses_once` ON `prompt_responses` (`prompt_id`,`agent_id`);--> statement-breakpoint
CREATE TABLE `prompts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`den_id` text NOT NULL,
	`author_id` text,
	`author_handle` text,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`closes_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `prompts_id_unique` ON `prompts` (`id`);--> statement-breakpoint
CREATE INDEX `prompts_den` ON `prompts` (`den_id`);