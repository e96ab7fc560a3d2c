ALTER TABLE `chunks` ADD `sensitivity` text;--> statement-breakpoint
ALTER TABLE `chunks` ADD `sensitivity_version` text;--> statement-breakpoint
CREATE INDEX `chunks_sensitivity_version` ON `chunks` (`sensitivity_version`);
