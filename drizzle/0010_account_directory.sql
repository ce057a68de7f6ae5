CREATE TABLE `account_directory` (
	`email` text PRIMARY KEY NOT NULL,
	`database` integer NOT NULL,
	`change_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `account_directory_email_unique` ON `account_directory` (lower("email"));--> statement-breakpoint
CREATE INDEX `account_directory_database_idx` ON `account_directory` (`database`);--> statement-breakpoint
-- Accounts made before there was more than one database are all in the first one (DB), the only
-- database that holds any when this runs; every database added later is empty when it runs this.
INSERT INTO `account_directory` (`email`, `database`, `change_id`, `created_at`) SELECT `email`, 0, `change_id`, `created_at` FROM `accounts`;
