CREATE TABLE `scenario_programs` (
	`scenario_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`program` text NOT NULL,
	PRIMARY KEY(`scenario_id`, `program`),
	FOREIGN KEY (`scenario_id`) REFERENCES `scenarios`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `scenario_programs_account_program_idx` ON `scenario_programs` (`account_id`,`program`,`scenario_id`);--> statement-breakpoint
DROP INDEX `scenarios_account_id_idx`;--> statement-breakpoint
ALTER TABLE `scenarios` ADD `year` integer GENERATED ALWAYS AS (json_extract(scenario_data, '$.year')) VIRTUAL;--> statement-breakpoint
CREATE INDEX `scenarios_account_state_idx` ON `scenarios` (`account_id`,`state_id`,`id`);--> statement-breakpoint
CREATE INDEX `scenarios_account_year_idx` ON `scenarios` (`account_id`,`year`,`id`);--> statement-breakpoint
CREATE INDEX `scenarios_account_id_idx` ON `scenarios` (`account_id`,`id`,`updated_at`);--> statement-breakpoint
-- Added by hand (drizzle-kit does not model triggers; WITHOUT ROWID above is hand-added too: the
-- table is its primary key, one b-tree fewer per row). scenario_programs follows
-- scenario_data.programs in the statement that writes scenario_data, so in its batch and its
-- transaction, whatever the write path; a save that keeps its programs writes no row here.
CREATE TRIGGER `scenario_programs_on_insert` AFTER INSERT ON `scenarios` BEGIN
  INSERT OR IGNORE INTO `scenario_programs` (`scenario_id`, `account_id`, `program`)
    SELECT NEW.`id`, NEW.`account_id`, `value` FROM json_each(NEW.`scenario_data`, '$.programs');
END;--> statement-breakpoint
CREATE TRIGGER `scenario_programs_on_update` AFTER UPDATE OF `scenario_data` ON `scenarios` BEGIN
  DELETE FROM `scenario_programs` WHERE `scenario_id` = NEW.`id`
    AND `program` NOT IN (SELECT `value` FROM json_each(NEW.`scenario_data`, '$.programs'));
  INSERT OR IGNORE INTO `scenario_programs` (`scenario_id`, `account_id`, `program`)
    SELECT NEW.`id`, NEW.`account_id`, `value` FROM json_each(NEW.`scenario_data`, '$.programs');
END;--> statement-breakpoint
-- Scenarios stored before this migration.
INSERT OR IGNORE INTO `scenario_programs` (`scenario_id`, `account_id`, `program`)
  SELECT `scenarios`.`id`, `scenarios`.`account_id`, `programs`.`value` FROM `scenarios`, json_each(`scenarios`.`scenario_data`, '$.programs') AS `programs`;
