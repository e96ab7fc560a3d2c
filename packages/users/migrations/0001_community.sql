CREATE TABLE `connection_requests` (
	`from_id` text NOT NULL,
	`to_id` text NOT NULL,
	`purpose` text NOT NULL,
	`proposal` text,
	`duration` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`from_id`, `to_id`)
);
--> statement-breakpoint
CREATE INDEX `connection_requests_to` ON `connection_requests` (`to_id`);--> statement-breakpoint
CREATE TABLE `connections` (
	`a` text NOT NULL,
	`b` text NOT NULL,
	`purpose` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`a`, `b`)
);
--> statement-breakpoint
CREATE INDEX `connections_b` ON `connections` (`b`);