-- Params: none
-- Needs: table host_ranges
-- The thread the GPU waited on during host_ranges: the one whose runtime/driver calls
-- launched the work that ended the most idle time there (the GPU-idle intervals ending
-- inside the ranges, by their launch's correlation id); of equals, the lowest pid and tid.
-- No row when none is linked (host_busiest_thread.sql then). Columns: pid, tid.
-- The intervals ending in a range are found first, by an as-of join (the ranges are
-- disjoint and in order: the one an interval ends in is the last to start before its end),
-- then joined to their work: the range join planned after the other joins held every
-- interval (a 10 GB trace's 5.5M: 4.5 s, against 0.7 s).
WITH ending AS MATERIALIZED (
    SELECT g.duration_ns, g.after_id
    FROM gpu_idle AS g
    ASOF JOIN host_ranges AS r ON g.end_ns > r.start_ns
    WHERE g.end_ns <= r.end_ns
), linked AS MATERIALIZED (
    SELECT e.duration_ns, a.correlation
    FROM ending AS e
    JOIN gpu_activities AS a ON a.id = e.after_id
    WHERE a.correlation IS NOT NULL
)
SELECT h.pid, h.tid
FROM linked AS e
JOIN host_activities AS h ON h.kind = 'runtime' AND h.correlation = e.correlation
GROUP BY h.pid, h.tid
ORDER BY sum(e.duration_ns) DESC, h.pid, h.tid
LIMIT 1;
