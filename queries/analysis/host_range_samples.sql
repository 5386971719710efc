-- Params: none
-- Needs: table host_ranges
-- The CPU samples taken inside host_ranges (host_ranges_merge.sql: disjoint, so an as-of
-- join finds the one range that may hold each sample), into the temp table
-- host_range_samples (pid, tid, chain).
CREATE OR REPLACE TEMP TABLE host_range_samples AS
SELECT s.pid, s.tid, s.chain
FROM host_samples AS s
ASOF JOIN host_ranges AS r ON s.ts_ns >= r.start_ns
WHERE s.ts_ns < r.end_ns;
