CREATE TABLE `auth_throttles` (
	`address` text PRIMARY KEY NOT NULL,
	`until` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `auth_throttles_until_idx` ON `auth_throttles` (`until`);