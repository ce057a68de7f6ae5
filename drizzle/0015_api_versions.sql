ALTER TABLE `accounts` ADD `api_version` text DEFAULT '2026-11-21' NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `previous_api_version` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `api_version_changed_at` integer;