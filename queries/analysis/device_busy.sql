-- Params: none
-- Needs: schema
-- Per device: span from first activity start to last activity end, and the time some
-- kernel, copy or set was running (span minus every idle gap).
-- Columns: device, name, span_ns, busy_ns, first_ns, last_ns, kernels.
WITH spans AS (
    SELECT device, min(start_ns) AS first_ns, max(end_ns) AS last_ns,
           count(*) FILTER (WHERE kind = 'kernel') AS kernels
    FROM gpu_activities
    GROUP BY device
), idle AS (
    SELECT device, sum(duration_ns) AS idle_ns FROM gpu_idle GROUP BY device
)
SELECT
    s.device,
    coalesce(d.name, 'GPU ' || s.device) AS name,
    (s.last_ns - s.first_ns)::BIGINT AS span_ns,
    (s.last_ns - s.first_ns - coalesce(i.idle_ns, 0))::BIGINT AS busy_ns,
    s.first_ns, s.last_ns, s.kernels
FROM spans AS s
LEFT JOIN idle AS i USING (device)
LEFT JOIN devices AS d USING (device)
ORDER BY s.device;
