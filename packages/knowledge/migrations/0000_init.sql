CREATE TABLE `articles` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`author_id` text,
	`author` text NOT NULL,
	`category` text NOT NULL,
	`tags` text NOT NULL,
	`summary` text NOT NULL,
	`content` text NOT NULL,
	`origin` text NOT NULL,
	`content_hash` text NOT NULL,
	`published_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `articles_slug_unique` ON `articles` (`slug`);--> statement-breakpoint
CREATE INDEX `articles_category` ON `articles` (`category`);--> statement-breakpoint
CREATE INDEX `articles_author` ON `articles` (`author`);--> statement-breakpoint
CREATE INDEX `articles_published` ON `articles` (`published_at`);--> statement-breakpoint
CREATE TABLE `chunks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`position` integer NOT NULL,
	`heading_path` text NOT NULL,
	`text` text NOT NULL,
	`length` integer NOT NULL,
	`embedding` blob
);
--> statement-breakpoint
CREATE INDEX `chunks_source` ON `chunks` (`source_id`);--> statement-breakpoint
CREATE INDEX `chunks_agent` ON `chunks` (`agent_id`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`handle` text NOT NULL,
	`name` text NOT NULL,
	`format` text NOT NULL,
	`characters` integer NOT NULL,
	`pages` integer,
	`chunks` integer NOT NULL,
	`keywords` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_agent_name` ON `sources` (`agent_id`,`name`);