-- Params: none
-- Needs: temp table stacks_found, arrow stacks_nesting_found
-- What tui/derived/nesting.py found for some points of stacks_points (stacks_nesting_found:
-- is_memory, point_id, k, host_id), added as it is to the temp table stacks_found that
-- stacks_launches.sql and stacks_memory_context.sql read. Flags and kinds' numbers, not
-- their names: the names as text took twice as long to write (1.5M rows: 0.07 s against
-- 0.03).
-- The points carry their own ids: a join back to stacks_points by row took 1.6 s and
-- 0.4 GB past DuckDB's memory limit on a 10 GB trace.
INSERT INTO stacks_found
SELECT is_memory, point_id, k, host_id
FROM stacks_nesting_found;
