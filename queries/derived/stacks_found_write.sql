-- Params: $kinds
-- Needs: temp table stacks_found, arrow stacks_nesting_found
-- What tui/derived/nesting.py found for some points of stacks_points (stacks_nesting_found:
-- is_memory, point_id, k, host_id), added to the temp table stacks_found (what, point_id,
-- kind: $kinds[k], host_id) that stacks_launches.sql and stacks_memory_context.sql read.
-- The points carry their own ids: a join back to stacks_points by row took 1.6 s and
-- 0.4 GB past DuckDB's memory limit on a 10 GB trace.
INSERT INTO stacks_found
SELECT CASE WHEN is_memory THEN 'memory' ELSE 'launch' END, point_id, $kinds[k], host_id
FROM stacks_nesting_found;
