-- Params: none
-- Needs: table host_ranges
-- The traced host work (CPU ops, Python frames, runtime calls) inside host_ranges, one row
-- per activity and range it overlaps, into the temp table host_range_activities (id, pid,
-- tid, depth, kind, name, start_ns, end_ns, range_start, range_end): read by the views of
-- the launching thread and of every thread alike, so the millions of activities meet the
-- ranges once.
-- They meet as gap_overlaps.sql's do, in an equality join on buckets of time, of width `w`
-- (a millisecond, or wider so that the ranges span at most about 100,000): an activity no
-- longer than a bucket can only overlap a range if it starts in a bucket from the one
-- before the range to the one it ends in. The ranges' buckets are the small side of a hash
-- join, and the activities (ids and times alone) stream past it, none sorted or held. The
-- few longer ones (or ending before they start) meet the ranges by their times. An
-- interval join of every activity with the ranges sorted them all: on many cores it cost
-- ten times the CPU; an as-of join (the ranges are disjoint) ran out of a small budget.
CREATE OR REPLACE TEMP TABLE host_range_ids AS
WITH width AS (
    SELECT greatest(1000000, sum(end_ns - start_ns) // 100000 + 1)::BIGINT AS w
    FROM host_ranges
), range_buckets AS (
    -- `//` truncates towards zero, but never decreases: all the bucket ranges need
    SELECT unnest(range((r.start_ns - w) // w, (r.end_ns - 1) // w + 1)) AS bucket,
           r.start_ns, r.end_ns
    FROM host_ranges AS r, width
), traced AS NOT MATERIALIZED (  -- each join streams it
    SELECT id, start_ns, end_ns, start_ns // w AS bucket,
           end_ns - start_ns BETWEEN 0 AND w AS short
    FROM host_activities, width
    WHERE kind IN ('cpu_op', 'python', 'runtime')
)
SELECT t.id, b.start_ns AS range_start, b.end_ns AS range_end
FROM traced AS t
JOIN range_buckets AS b USING (bucket)
WHERE t.short AND t.start_ns < b.end_ns AND t.end_ns > b.start_ns
UNION ALL
SELECT t.id, r.start_ns AS range_start, r.end_ns AS range_end
FROM (SELECT * FROM traced WHERE NOT short) AS t
JOIN host_ranges AS r ON t.start_ns < r.end_ns AND t.end_ns > r.start_ns;

-- the few rows found fetch the rest by id
CREATE OR REPLACE TEMP TABLE host_range_activities AS
SELECT h.id, h.pid, h.tid, h.depth, h.kind, h.name, h.start_ns, h.end_ns,
       i.range_start, i.range_end
FROM host_activities AS h
JOIN host_range_ids AS i USING (id);

DROP TABLE host_range_ids;
