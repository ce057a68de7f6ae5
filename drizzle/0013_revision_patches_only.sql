ALTER TABLE `scenario_revisions` DROP COLUMN `scenario_data`;--> statement-breakpoint
-- hand-written:
-- A change that makes a new version (save, restore, any later write path) turns the revision of the
-- version it replaces into its reverse patch, in its own statement, hence its batch and its
-- transaction: a JSON array of [path, value] (set the value there, "[#]" appends to an array) and
-- [path] (remove: "[#-1]", an array's last element), applied in order to the newer data. Values
-- are set at the shallowest path whose container keeps its shape (same keys in the same order), so
-- every path set exists in the newer data and keeps its place, and a container whose JSON text is
-- unchanged is not looked into. src/revisions/history.ts applies patches for reads, and
-- src/db/revisions.ts in SQL for a restore.
CREATE TRIGGER `scenario_revisions_patch` AFTER UPDATE OF `version` ON `scenarios` WHEN NEW.`version` <> OLD.`version` BEGIN
  UPDATE `scenario_revisions` SET `patch` = (WITH RECURSIVE
    -- The older data's containers (objects, arrays) and how each compares with the newer data's at
    -- its path: `same` shape (there, of the same type, for an object the same keys in the same
    -- order, an array may change length), and `equal` (the same JSON text: nothing below differs).
    shape AS MATERIALIZED (
      SELECT t.id, t.parent, t.type, json_type(NEW.`scenario_data`, t.fullkey) IS t.type AND (t.type = 'array'
          OR (SELECT json_group_array(c.key) FROM json_each(OLD.`scenario_data`, t.fullkey) AS c) IS (SELECT json_group_array(c.key) FROM json_each(NEW.`scenario_data`, t.fullkey) AS c)) AS same,
        (OLD.`scenario_data` -> t.fullkey) IS (NEW.`scenario_data` -> t.fullkey) AS equal
      FROM json_tree(OLD.`scenario_data`) AS t WHERE t.type IN ('object', 'array')),
    -- The containers to look inside: of the same shape but not equal, from the root down.
    inside(id) AS (
      SELECT id FROM shape WHERE parent IS NULL AND same AND NOT equal
      UNION ALL
      SELECT shape.id FROM shape JOIN inside ON shape.parent = inside.id WHERE shape.same AND NOT shape.equal),
    kept AS MATERIALIZED (SELECT id FROM inside),
    op(seq, entry) AS (
      -- The whole data, when the root's shape differs.
      SELECT 0, json_array('$', json(OLD.`scenario_data`)) FROM shape WHERE parent IS NULL AND NOT same
      UNION ALL
      -- Each child of a container looked inside that differs: missing or of another type in the
      -- newer data, a container of another shape, another value (a real number by its text). An
      -- element past the end of the newer array is appended ("[#]"), in order.
      SELECT o.id, json_array(CASE WHEN typeof(o.key) = 'integer' AND json_type(NEW.`scenario_data`, o.fullkey) IS NULL THEN o.path || '[#]' ELSE o.fullkey END, json(OLD.`scenario_data` -> o.fullkey))
      FROM json_tree(OLD.`scenario_data`) AS o
      WHERE o.parent IN (SELECT id FROM kept) AND (json_type(NEW.`scenario_data`, o.fullkey) IS NOT o.type
        OR (o.type IN ('object', 'array') AND o.id IN (SELECT id FROM shape WHERE NOT same))
        OR (o.type = 'real' AND (NEW.`scenario_data` -> o.fullkey) IS NOT (OLD.`scenario_data` -> o.fullkey))
        OR (o.type NOT IN ('object', 'array', 'real') AND (NEW.`scenario_data` ->> o.fullkey) IS NOT o.atom))
      UNION ALL
      -- Each element of a newer array (looked inside) past the older one's end is removed, from the end.
      SELECT 1e9 + e.key, json_array(a.fullkey || '[#-1]')
      FROM json_tree(OLD.`scenario_data`) AS a JOIN json_each(NEW.`scenario_data`, a.fullkey) AS e
      WHERE a.type = 'array' AND a.id IN (SELECT id FROM kept) AND e.key >= json_array_length(OLD.`scenario_data`, a.fullkey))
    -- The data whole instead where that is shorter (a save of a different household).
    SELECT CASE WHEN length(patch) > length(OLD.`scenario_data`) + 8 THEN json_array(json_array('$', json(OLD.`scenario_data`))) ELSE patch END
    FROM (SELECT json_group_array(json(entry) ORDER BY seq) AS patch FROM op))
  WHERE `scenario_id` = OLD.`id` AND `version` = OLD.`version`;
END;
