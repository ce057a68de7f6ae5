CREATE TABLE `scenario_revisions` (
	`scenario_id` integer NOT NULL,
	`version` integer NOT NULL,
	`state_id` integer NOT NULL,
	`scenario_data` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`scenario_id`, `version`),
	FOREIGN KEY (`scenario_id`) REFERENCES `scenarios`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`state_id`) REFERENCES `states`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Hand-added: every existing scenario's current data becomes its first recorded revision.
INSERT INTO `scenario_revisions` (`scenario_id`, `version`, `state_id`, `scenario_data`, `created_at`)
SELECT `id`, `version`, `state_id`, `scenario_data`, `updated_at` FROM `scenarios`;
