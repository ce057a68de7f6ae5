ALTER TABLE `accounts` ADD `scenario_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Accounts that held scenarios before the count was kept start from what they hold.
UPDATE `accounts` SET `scenario_count` = (SELECT count(*) FROM `scenarios` WHERE `scenarios`.`account_id` = `accounts`.`id`);
