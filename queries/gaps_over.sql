-- GPU-idle gaps longer than $min_gap_ns (strictly, as `nsys analyze -r gpu_gaps`),
-- longest first, with the names of the activities before and after each; $device and
-- $start_ns, when not NULL, pick one gap.
-- Columns: device, start_ns, end_ns, duration_ns, before_name, after_name,
--          after_correlation, after_kind.
SELECT
    g.device, g.start_ns, g.end_ns, g.duration_ns,
    b.name AS before_name,
    a.name AS after_name,
    a.correlation AS after_correlation,
    a.kind AS after_kind
FROM gpu_idle AS g
LEFT JOIN gpu_activities AS b ON b.id = g.before_id
LEFT JOIN gpu_activities AS a ON a.id = g.after_id
WHERE g.duration_ns > $min_gap_ns
  AND ($device IS NULL OR g.device = $device)
  AND ($start_ns IS NULL OR g.start_ns = $start_ns)
ORDER BY g.duration_ns DESC, g.start_ns
LIMIT $limit;
