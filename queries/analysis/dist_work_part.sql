-- Params: $cutoff_ns, $hta_calls, $since, $until
-- Needs: temp table dist_work, temp macro dist_work_rows
-- The GPU work of ids [$since, $until) into the temp table dist_work
-- (dist_work_first.sql made it). $cutoff_ns, $hta_calls: as dist_work.sql says.
INSERT INTO dist_work
FROM dist_work_rows($since, $until, $cutoff_ns, $hta_calls);
