CREATE TABLE `answers` (
	`question_id` text NOT NULL,
	`peer_id` text NOT NULL,
	`peer_handle` text NOT NULL,
	`text` text NOT NULL,
	`citations` text NOT NULL,
	`strategy` text NOT NULL,
	`revision` integer NOT NULL,
	`received_at` integer NOT NULL,
	`event_id` text NOT NULL,
	PRIMARY KEY(`question_id`, `peer_id`)
);
--> statement-breakpoint
CREATE TABLE `question_peers` (
	`question_id` text NOT NULL,
	`peer_id` text NOT NULL,
	`peer_handle` text NOT NULL,
	`peer_node` text NOT NULL,
	`status` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`question_id`, `peer_id`)
);
--> statement-breakpoint
CREATE TABLE `questions` (
	`id` text PRIMARY KEY NOT NULL,
	`asker_id` text NOT NULL,
	`asker_handle` text NOT NULL,
	`question` text NOT NULL,
	`broadcast` integer NOT NULL,
	`asked_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `questions_asker_at` ON `questions` (`asker_id`,`asked_at`);--> statement-breakpoint
CREATE TABLE `received_queries` (
	`id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`recipient_handle` text NOT NULL,
	`asker_id` text NOT NULL,
	`asker_handle` text NOT NULL,
	`asker_node` text NOT NULL,
	`asker_profile` text,
	`question` text NOT NULL,
	`asked_at` integer NOT NULL,
	`received_at` integer NOT NULL,
	`status` text NOT NULL,
	`draft_text` text,
	`citations` text NOT NULL,
	`strategy` text,
	`edited` integer DEFAULT false NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL,
	`decision_reason` text NOT NULL,
	`decided_by` text NOT NULL,
	`decision_condition` text,
	`decided_at` integer,
	`evaluated_at` integer,
	PRIMARY KEY(`id`, `recipient_id`)
);
--> statement-breakpoint
CREATE INDEX `received_recipient_status` ON `received_queries` (`recipient_id`,`status`,`received_at`);