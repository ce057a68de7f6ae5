CREATE TABLE `scenario_deletions` (
	`token` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`change_id` text NOT NULL,
	`deleted_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `scenario_deletions_deleted_idx` ON `scenario_deletions` (`deleted_at`);--> statement-breakpoint
ALTER TABLE `scenarios` ADD `change_id` text;