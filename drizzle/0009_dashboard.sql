CREATE TABLE `dashboard_audit` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`account_id` integer NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`target` text,
	`address` text,
	`user_agent` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboard_audit_id_unique` ON `dashboard_audit` (`id`);--> statement-breakpoint
CREATE INDEX `dashboard_audit_account_seq_idx` ON `dashboard_audit` (`account_id`,`seq`);--> statement-breakpoint
CREATE INDEX `dashboard_audit_created_idx` ON `dashboard_audit` (`created_at`);--> statement-breakpoint
CREATE TABLE `dashboard_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`idle_expires_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_account_idx` ON `dashboard_sessions` (`account_id`);--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expires_idx` ON `dashboard_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `dashboard_sign_in_links` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`session_hash` text
);
--> statement-breakpoint
CREATE INDEX `dashboard_sign_in_links_email_idx` ON `dashboard_sign_in_links` (lower("email"),`expires_at`);--> statement-breakpoint
CREATE INDEX `dashboard_sign_in_links_expires_idx` ON `dashboard_sign_in_links` (`expires_at`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `last_four` text;