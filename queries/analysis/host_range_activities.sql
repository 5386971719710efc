-- Params: none
-- Needs: table host_ranges
-- The traced host work (CPU ops, Python frames, runtime calls) inside host_ranges, one row
-- per activity and range it overlaps, into the temp table host_range_activities (id, pid,
-- tid, depth, kind, name, start_ns, end_ns, range_start, range_end): read by the views of
-- the launching thread and of every thread alike, so the millions of activities meet the
-- ranges once. The ranges are disjoint and in time order (host_ranges_merge.sql), so an
-- as-of join finds the one range an activity can overlap, the last to start before it
-- ends, unless it began before that range; only those few that did (an op that spans a
-- gap's start) are matched with every range they overlap. The joins carry the times and
-- ids alone (what they sort); the few rows found fetch the rest by id.
CREATE OR REPLACE TEMP TABLE host_range_activities AS
WITH traced AS (
    SELECT id, start_ns, end_ns
    FROM host_activities
    WHERE kind IN ('cpu_op', 'python', 'runtime')
), last_range AS (
    SELECT t.id, t.start_ns, t.end_ns, r.start_ns AS range_start, r.end_ns AS range_end
    FROM traced AS t
    ASOF JOIN host_ranges AS r ON t.end_ns > r.start_ns
    WHERE r.end_ns > t.start_ns
), inside AS (
    SELECT id, range_start, range_end FROM last_range WHERE start_ns >= range_start
    UNION ALL
    SELECT a.id, r.start_ns AS range_start, r.end_ns AS range_end
    FROM (SELECT * FROM last_range WHERE start_ns < range_start) AS a
    JOIN host_ranges AS r ON a.start_ns < r.end_ns AND a.end_ns > r.start_ns
)
SELECT h.id, h.pid, h.tid, h.depth, h.kind, h.name, h.start_ns, h.end_ns,
       i.range_start, i.range_end
FROM inside AS i
JOIN host_activities AS h USING (id);
