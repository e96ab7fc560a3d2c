CREATE TABLE `projects` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`author_id` text NOT NULL,
	`author_handle` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`category` text NOT NULL,
	`tags` text NOT NULL,
	`url` text,
	`repo` text,
	`demo` text,
	`images` text NOT NULL,
	`votes` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_id_unique` ON `projects` (`id`);--> statement-breakpoint
CREATE INDEX `projects_category` ON `projects` (`category`);--> statement-breakpoint
CREATE INDEX `projects_votes` ON `projects` (`votes`);--> statement-breakpoint
CREATE INDEX `projects_created` ON `projects` (`created_at`);--> statement-breakpoint
CREATE TABLE `votes` (
	`project_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `agent_id`)
);
