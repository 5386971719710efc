-- Params: $cutoff_ns, $hta_calls, $since, $until
-- Needs: temp macro dist_work_rows
-- The temp table dist_work (dist_work.sql says what it holds), made of the GPU work of
-- ids [$since, $until): the whole trace's where it fits in one part, else the first part,
-- dist_work_part.sql adding the others ([0, 0): none, an empty table).
CREATE OR REPLACE TEMP TABLE dist_work AS
FROM dist_work_rows($since, $until, $cutoff_ns, $hta_calls);
