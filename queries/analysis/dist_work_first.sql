-- Params: $since, $until, {rows}
-- Needs: temp macro dist_links
-- The temp table dist_work, made of the GPU work of ids [$since, $until) ({rows}:
-- dist_work.sql, which says what it holds, and its $cutoff_ns and $hta_calls): the whole
-- trace's where it fits in one part, else the first part, dist_work_part.sql adding the
-- others ([0, 0): none, an empty table).
CREATE OR REPLACE TEMP TABLE dist_work AS
WITH links AS (FROM dist_links($since, $until))
SELECT * FROM ({rows});
