-- Params: {graph_replays}
-- Needs: schema
-- Kernels CUDA graphs' replays ran ({graph_replays}: graph_replays.sql), by name: kernels
-- no host call launched on its own, which the launch_overhead finding
-- (tui/analysis/findings.py) leaves out of its launches.
-- Columns: name, replayed.
WITH graph_replays AS (
    {graph_replays}
)
SELECT g.name, count(*) AS replayed
FROM graph_replays AS r
JOIN gpu_activities AS g ON g.id = r.gpu_id
WHERE g.kind = 'kernel'
GROUP BY g.name;
