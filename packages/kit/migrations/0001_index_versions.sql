-- What each derived index of a service was written with (see rebuildIndex in src/db/rebuild-index.ts).
CREATE TABLE `lore_index_versions` (
	`name` text PRIMARY KEY NOT NULL,
	`version` text,
	`target` text,
	`after` integer DEFAULT 0 NOT NULL
);
