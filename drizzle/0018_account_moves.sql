CREATE TABLE `account_moves` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`database` integer NOT NULL,
	`state` text NOT NULL,
	`progress` text,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `moved_refs` (
	`ref` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`key_id` integer
);
--> statement-breakpoint
CREATE INDEX `moved_refs_account_idx` ON `moved_refs` (`account_id`);--> statement-breakpoint
CREATE INDEX `moved_refs_key_idx` ON `moved_refs` (`key_id`);