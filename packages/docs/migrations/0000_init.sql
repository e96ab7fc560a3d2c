CREATE TABLE `chunks` (
	`id` integer PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`ordinal` integer NOT NULL,
	`heading_path` text NOT NULL,
	`text` text NOT NULL,
	`vector` blob
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chunks_document_ordinal` ON `chunks` (`document`,`ordinal`);--> statement-breakpoint
CREATE TABLE `docs_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `documents` (
	`name` text PRIMARY KEY NOT NULL,
	`uri` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`content` text NOT NULL,
	`data_source` text NOT NULL,
	`content_hash` text NOT NULL,
	`update_time` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `documents_source` ON `documents` (`data_source`);--> statement-breakpoint
CREATE INDEX `documents_uri` ON `documents` (`uri`);--> statement-breakpoint
CREATE INDEX `documents_update_time` ON `documents` (`update_time`);