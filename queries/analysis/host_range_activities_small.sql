-- Params: none
-- Needs: table host_ranges
-- host_range_activities.sql's temp table (the traced host work inside host_ranges, one row
-- per activity and range it overlaps) for a trace of few host activities: one interval
-- join of the activities with the ranges. The same rows; on a few tens of thousands of
-- activities it costs a third of the bucket join's CPU (which builds the ranges' buckets
-- and a table of ids first), on a million three times as much.
CREATE OR REPLACE TEMP TABLE host_range_activities AS
SELECT h.id, h.pid, h.tid, h.depth, h.kind, h.name, h.start_ns, h.end_ns,
       r.start_ns AS range_start, r.end_ns AS range_end
FROM host_activities AS h
JOIN host_ranges AS r ON h.start_ns < r.end_ns AND h.end_ns > r.start_ns
WHERE h.kind IN ('cpu_op', 'python', 'runtime');
