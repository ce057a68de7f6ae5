CREATE TABLE `share_links` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`scenario_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`secret_hash` text NOT NULL,
	`show_nicknames` integer DEFAULT 0 NOT NULL,
	`views` integer DEFAULT 0 NOT NULL,
	`last_viewed_at` integer,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`scenario_id`) REFERENCES `scenarios`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `share_links_id_unique` ON `share_links` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `share_links_secret_hash_unique` ON `share_links` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `share_links_scenario_idx` ON `share_links` (`scenario_id`,`seq`);