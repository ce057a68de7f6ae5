ALTER TABLE `scenario_revisions` ADD `patch` text;--> statement-breakpoint
-- hand-written:
-- Each stored revision but a scenario's current one becomes a reverse patch: what to set (or
-- remove) in the next newer version's data to get its own (docs/decisions.md, "Compact history").
-- The patch is the one the trigger of 0013 makes as a save or a restore replaces the data. Each
-- revision is paired with the next newer one in a working table whose trigger writes the patch
-- (inside a trigger the pair is bound once, as in 0013, where a correlated UPDATE would compute the
-- comparison again for every node). The current version's row keeps patch NULL (its data is the
-- scenario's row).
CREATE TABLE `__revision_pairs` (`scenario_id` integer NOT NULL, `version` integer NOT NULL, `older` text NOT NULL, `newer` text NOT NULL);
--> statement-breakpoint
CREATE TRIGGER `__revision_pairs_patch` AFTER INSERT ON `__revision_pairs` BEGIN
  UPDATE `scenario_revisions` SET `patch` = (WITH RECURSIVE
    -- The older data's containers (objects, arrays) and how each compares with the newer data's at
    -- its path: `same` shape (there, of the same type, for an object the same keys in the same
    -- order, an array may change length), and `equal` (the same JSON text: nothing below differs).
    shape AS MATERIALIZED (
      SELECT t.id, t.parent, t.type, json_type(NEW.`newer`, t.fullkey) IS t.type AND (t.type = 'array'
          OR (SELECT json_group_array(c.key) FROM json_each(NEW.`older`, t.fullkey) AS c) IS (SELECT json_group_array(c.key) FROM json_each(NEW.`newer`, t.fullkey) AS c)) AS same,
        (NEW.`older` -> t.fullkey) IS (NEW.`newer` -> t.fullkey) AS equal
      FROM json_tree(NEW.`older`) AS t WHERE t.type IN ('object', 'array')),
    -- The containers to look inside: of the same shape but not equal, from the root down.
    inside(id) AS (
      SELECT id FROM shape WHERE parent IS NULL AND same AND NOT equal
      UNION ALL
      SELECT shape.id FROM shape JOIN inside ON shape.parent = inside.id WHERE shape.same AND NOT shape.equal),
    kept AS MATERIALIZED (SELECT id FROM inside),
    op(seq, entry) AS (
      -- The whole data, when the root's shape differs.
      SELECT 0, json_array('$', json(NEW.`older`)) FROM shape WHERE parent IS NULL AND NOT same
      UNION ALL
      -- Each child of a container looked inside that differs: missing or of another type in the
      -- newer data, a container of another shape, another value (a real number by its text). An
      -- element past the end of the newer array is appended ("[#]"), in order.
      SELECT o.id, json_array(CASE WHEN typeof(o.key) = 'integer' AND json_type(NEW.`newer`, o.fullkey) IS NULL THEN o.path || '[#]' ELSE o.fullkey END, json(NEW.`older` -> o.fullkey))
      FROM json_tree(NEW.`older`) AS o
      WHERE o.parent IN (SELECT id FROM kept) AND (json_type(NEW.`newer`, o.fullkey) IS NOT o.type
        OR (o.type IN ('object', 'array') AND o.id IN (SELECT id FROM shape WHERE NOT same))
        OR (o.type = 'real' AND (NEW.`newer` -> o.fullkey) IS NOT (NEW.`older` -> o.fullkey))
        OR (o.type NOT IN ('object', 'array', 'real') AND (NEW.`newer` ->> o.fullkey) IS NOT o.atom))
      UNION ALL
      -- Each element of a newer array (looked inside) past the older one's end is removed, from the end.
      SELECT 1e9 + e.key, json_array(a.fullkey || '[#-1]')
      FROM json_tree(NEW.`older`) AS a JOIN json_each(NEW.`newer`, a.fullkey) AS e
      WHERE a.type = 'array' AND a.id IN (SELECT id FROM kept) AND e.key >= json_array_length(NEW.`older`, a.fullkey))
    -- The data whole instead where that is shorter (a save of a different household).
    SELECT CASE WHEN length(patch) > length(NEW.`older`) + 8 THEN json_array(json_array('$', json(NEW.`older`))) ELSE patch END
    FROM (SELECT json_group_array(json(entry) ORDER BY seq) AS patch FROM op))
  WHERE `scenario_id` = NEW.`scenario_id` AND `version` = NEW.`version`;
END;
--> statement-breakpoint
INSERT INTO `__revision_pairs` (`scenario_id`, `version`, `older`, `newer`)
  SELECT r.`scenario_id`, r.`version`, r.`scenario_data`, n.`scenario_data`
  FROM `scenario_revisions` AS r JOIN `scenario_revisions` AS n ON n.`scenario_id` = r.`scenario_id` AND n.`version` = r.`version` + 1;
--> statement-breakpoint
DROP TABLE `__revision_pairs`;
--> statement-breakpoint
-- A revision whose next newer one is missing cannot be rebuilt from the current data, nor can any
-- older one (none is missing: pruning removes the oldest first, this keeps the conversion total).
DELETE FROM `scenario_revisions` WHERE `version` <= (
  SELECT max(r.`version`) FROM `scenario_revisions` AS r JOIN `scenarios` AS s ON s.`id` = r.`scenario_id`
  WHERE r.`scenario_id` = `scenario_revisions`.`scenario_id` AND r.`version` < s.`version`
    AND NOT EXISTS (SELECT 1 FROM `scenario_revisions` AS x WHERE x.`scenario_id` = r.`scenario_id` AND x.`version` = r.`version` + 1)
);
