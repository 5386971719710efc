-- Params: $end_ns, $start_ns
-- Needs: schema
-- Per device, within a window ($start_ns, $end_ns; NULL: the whole trace): its span, from
-- its first activity to its last, clipped to the window, and the time some kernel, copy
-- or set ran in it (the span less the idle intervals of gpu_idle, clipped to it). As
-- device_busy.sql when both bounds are NULL. A device with nothing in the window has no row.
-- Columns: device, span_ns, busy_ns.
WITH spans AS (
    SELECT device, greatest(min(start_ns), $start_ns) AS first_ns,
           least(max(end_ns), $end_ns) AS last_ns
    FROM gpu_activities
    WHERE device IS NOT NULL
    GROUP BY device
), idle AS (
    SELECT g.device,
           sum(greatest(0, least(g.end_ns, s.last_ns) - greatest(g.start_ns, s.first_ns)))
               AS idle_ns
    FROM gpu_idle AS g
    JOIN spans AS s USING (device)
    GROUP BY g.device
)
SELECT s.device, (s.last_ns - s.first_ns)::BIGINT AS span_ns,
       (s.last_ns - s.first_ns - coalesce(i.idle_ns, 0))::BIGINT AS busy_ns
FROM spans AS s
LEFT JOIN idle AS i USING (device)
WHERE s.last_ns > s.first_ns
ORDER BY s.device;
