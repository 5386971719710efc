-- What tui/sources/nesting.py found for the points of stacks_points (the temp table
-- stacks_nesting_found: p, k, host_id), into the temp table stacks_found (what, point_id,
-- kind: $kinds[k], host_id) that stacks_launches.sql and stacks_memory_context.sql read.
CREATE OR REPLACE TEMP TABLE stacks_found AS
SELECT s.what, s.point_id, $kinds[f.k] AS kind, f.host_id
FROM stacks_nesting_found AS f
JOIN (SELECT rowid AS p, what, point_id FROM stacks_points) AS s USING (p);
