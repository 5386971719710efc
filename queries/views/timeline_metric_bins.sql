-- Params: $names, $npc, $reach_ns, $t_hi, $t_lo
-- Needs: schema
-- The GPU metric lanes' window binned to screen columns (column c covers [c * $npc,
-- (c + 1) * $npc) ns): per device, metric (of those named in $names) and column with
-- samples, the mean of its samples; col NULL: the first sample at or after $t_hi (within
-- $reach_ns), whose sampling period may reach back into the window's last columns.
-- Columns: device, metric_id, col, mean, first_ns
WITH wanted AS (
    SELECT device, metric_id FROM gpu_metric_names WHERE list_contains($names, name)
)
SELECT g.device, g.metric_id, g.ts_ns // $npc AS col, avg(g.value) AS mean,
       min(g.ts_ns) AS first_ns
FROM gpu_metrics AS g
SEMI JOIN wanted AS w ON w.device = g.device AND w.metric_id = g.metric_id
WHERE g.ts_ns >= $t_lo AND g.ts_ns < $t_hi
GROUP BY g.device, g.metric_id, col
UNION ALL
SELECT g.device, g.metric_id, NULL, arg_min(g.value, g.ts_ns), min(g.ts_ns)
FROM gpu_metrics AS g
SEMI JOIN wanted AS w ON w.device = g.device AND w.metric_id = g.metric_id
WHERE g.ts_ns >= $t_hi AND g.ts_ns < $t_hi + $reach_ns
GROUP BY g.device, g.metric_id;
