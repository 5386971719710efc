-- Params: $since, $until, {rows}
-- Needs: temp macro dist_links, temp table dist_work
-- The GPU work of ids [$since, $until) into the temp table dist_work
-- (dist_work_first.sql made it; {rows}: dist_work.sql, as there).
INSERT INTO dist_work
WITH links AS (FROM dist_links($since, $until))
SELECT * FROM ({rows});
