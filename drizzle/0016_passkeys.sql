CREATE TABLE `dashboard_passkey_challenges` (
	`challenge_hash` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`session_hash` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`used_by` text
);
--> statement-breakpoint
CREATE INDEX `dashboard_passkey_challenges_expires_idx` ON `dashboard_passkey_challenges` (`expires_at`);--> statement-breakpoint
CREATE TABLE `dashboard_passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` integer NOT NULL,
	`name` text NOT NULL,
	`public_key` text NOT NULL,
	`sign_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	FOREIGN KEY (`member_id`) REFERENCES `dashboard_members`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dashboard_passkeys_member_idx` ON `dashboard_passkeys` (`member_id`);