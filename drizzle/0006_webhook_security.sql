CREATE TABLE `write_receipts` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `write_receipts_created_idx` ON `write_receipts` (`created_at`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `change_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_change_id_unique` ON `accounts` (`change_id`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `attempt_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_attempt_key_unique` ON `webhook_deliveries` (`attempt_key`);--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `secret_key_id` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `previous_secret` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `previous_secret_key_id` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `previous_secret_expires_at` integer;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `status` text DEFAULT 'enabled' NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `failing_since` integer;--> statement-breakpoint
-- Secrets stored before this migration stay as they were (plaintext, secret_key_id null) and keep
-- signing: SQL cannot encrypt, and the key lives in a Worker secret. The hourly cron seals them
-- under WEBHOOK_SECRET_KEYS (src/webhooks/secret-box.ts), a batch of rows at a time.
SELECT 1;
