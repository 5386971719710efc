-- Params: none
-- Needs: table host_ranges
-- The thread the GPU waited on during host_ranges: the one whose runtime/driver calls
-- launched the work that ended the most idle time there (the GPU-idle intervals ending
-- inside the ranges, by their launch's correlation id); of equals, the lowest pid and tid.
-- No row when none is linked (host_busiest_thread.sql then). Columns: pid, tid.
WITH ending AS (
    SELECT g.duration_ns, a.correlation
    FROM gpu_idle AS g
    JOIN host_ranges AS r ON g.end_ns > r.start_ns AND g.end_ns <= r.end_ns
    JOIN gpu_activities AS a ON a.id = g.after_id
    WHERE a.correlation IS NOT NULL
)
SELECT h.pid, h.tid
FROM ending AS e
JOIN host_activities AS h ON h.kind = 'runtime' AND h.correlation = e.correlation
GROUP BY h.pid, h.tid
ORDER BY sum(e.duration_ns) DESC, h.pid, h.tid
LIMIT 1;
