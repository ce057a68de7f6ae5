CREATE TABLE `dashboard_invitations` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`revoked_at` integer,
	`session_hash` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dashboard_invitations_account_idx` ON `dashboard_invitations` (`account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `dashboard_invitations_expires_idx` ON `dashboard_invitations` (`expires_at`);--> statement-breakpoint
CREATE TABLE `dashboard_key_creators` (
	`key_id` integer PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `dashboard_members` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboard_members_account_email_unique` ON `dashboard_members` (`account_id`,lower("email"));--> statement-breakpoint
CREATE INDEX `dashboard_members_email_idx` ON `dashboard_members` (lower("email"));--> statement-breakpoint
ALTER TABLE `dashboard_sessions` ADD `flash` text;--> statement-breakpoint
ALTER TABLE `dashboard_sessions` ADD `flash_read_by` text;--> statement-breakpoint
ALTER TABLE `dashboard_sessions` ADD `member_id` integer;--> statement-breakpoint
CREATE INDEX `dashboard_sessions_member_idx` ON `dashboard_sessions` (`member_id`);--> statement-breakpoint
-- hand-written: every existing account's e-mail becomes its first owner, and every live session
-- is that owner's (before this, one e-mail was one account).
INSERT INTO `dashboard_members` (`account_id`, `email`, `role`, `created_at`) SELECT `id`, `email`, 'owner', `created_at` FROM `accounts` WHERE true ON CONFLICT DO NOTHING;--> statement-breakpoint
UPDATE `dashboard_sessions` SET `member_id` = (SELECT `dashboard_members`.`id` FROM `dashboard_members` WHERE `dashboard_members`.`account_id` = `dashboard_sessions`.`account_id` AND `dashboard_members`.`role` = 'owner' ORDER BY `dashboard_members`.`id` LIMIT 1) WHERE `member_id` IS NULL;
