CREATE TABLE `database_sizes` (
	`database` integer PRIMARY KEY NOT NULL,
	`bytes` integer NOT NULL,
	`recorded_at` integer NOT NULL
);
