-- Params: none
-- Needs: table host_ranges
-- The thread the GPU waited on during host_ranges: the one whose runtime/driver calls
-- launched the work that ended the most idle time there (the GPU-idle intervals ending
-- inside the ranges, by their launch's correlation id); else, when none is linked, the
-- thread with the most runtime/driver calls. Of equals, the lowest pid and tid.
-- Columns: pid, tid.
WITH ending AS (
    SELECT g.duration_ns, a.correlation
    FROM gpu_idle AS g
    JOIN host_ranges AS r ON g.end_ns > r.start_ns AND g.end_ns <= r.end_ns
    JOIN gpu_activities AS a ON a.id = g.after_id
    WHERE a.correlation IS NOT NULL
), waited_on AS (
    SELECT h.pid, h.tid, sum(e.duration_ns) AS ns, 0 AS fallback
    FROM ending AS e
    JOIN host_activities AS h ON h.kind = 'runtime' AND h.correlation = e.correlation
    GROUP BY h.pid, h.tid
), busiest AS (
    SELECT pid, tid, count(*) AS ns, 1 AS fallback
    FROM host_activities
    WHERE kind = 'runtime'
    GROUP BY pid, tid
)
SELECT pid, tid
FROM (SELECT * FROM waited_on UNION ALL SELECT * FROM busiest)
ORDER BY fallback, ns DESC, pid, tid
LIMIT 1;
