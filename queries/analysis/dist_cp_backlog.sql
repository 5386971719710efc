-- Params: $start_ns
-- Needs: temp table dist_work
-- What the GPUs still ran at $start_ns (the first step's start) of the work launched
-- before it (critical paths, tui/analysis/distributed/critical_path.py): every activity of a
-- device that ended after $start_ns and started before the device's first work launched
-- at $start_ns or later, its launch call before $start_ns or not in the trace (Kineto
-- records the GPU work the profiler's first step found queued, not the calls that
-- launched it), by device, stream and start.
-- Columns: device, stream, start_ns, end_ns.
WITH first AS (
    SELECT device, min(start_ns) AS first_ns
    FROM dist_work
    WHERE call_start_ns >= $start_ns
    GROUP BY device
), launched AS (
    SELECT id
    FROM dist_work
    WHERE call_start_ns >= $start_ns AND start_ns < (SELECT max(first_ns) FROM first)
)
SELECT g.device, g.stream, g.start_ns, g.end_ns
FROM gpu_activities AS g
JOIN first AS f ON f.device = g.device
WHERE g.end_ns > $start_ns AND g.start_ns < f.first_ns
  AND g.id NOT IN (SELECT id FROM launched)
ORDER BY g.device, g.stream, g.start_ns;
