-- The decision log moves here from the approvals service: one row per `lore.queries.query.decided`
-- event this service emits, written in the transaction that emits it (src/domain/decisions.ts).
-- A database from before gets one row per copy that was decided, rebuilt from the copy's latest
-- decision (no event id, no per-condition checks); the full history of those decisions stays in
-- the approvals database's old `decisions` table (see the approvals README, "Upgrading").
CREATE TABLE `decisions` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text,
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
CREATE UNIQUE INDEX `decisions_event` ON `decisions` (`event_id`);--> statement-breakpoint
CREATE INDEX `decisions_query` ON `decisions` (`query_id`,`recipient_id`,`at`);--> statement-breakpoint
CREATE INDEX `decisions_recipient` ON `decisions` (`recipient_id`,`at`);--> statement-breakpoint
INSERT INTO `decisions` (`id`, `event_id`, `query_id`, `recipient_id`, `recipient_handle`, `asker_handle`, `kind`, `outcome`, `decided_by`, `condition`, `reason`, `checks`, `at`)
SELECT
	'imported:' || `id` || ':' || `recipient_id`,
	NULL,
	`id`,
	`recipient_id`,
	`recipient_handle`,
	`asker_handle`,
	CASE
		WHEN `status` = 'undeliverable' THEN 'system'
		WHEN `decided_by` LIKE 'manual:%' OR `decision_reason` LIKE 'Answer written by %' THEN 'manual'
		ELSE 'auto'
	END,
	CASE WHEN `status` = 'pending' AND `decision_reason` LIKE 'Answer written by %' THEN 'edited' ELSE `status` END,
	`decided_by`,
	`decision_condition`,
	`decision_reason`,
	'[]',
	COALESCE(`decided_at`, `evaluated_at`, `received_at`)
FROM `received_queries`
WHERE `status` IN ('accepted', 'rejected', 'held', 'undeliverable')
	OR (`status` = 'pending' AND `evaluated_at` IS NOT NULL);
