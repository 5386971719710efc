-- Params: $end_ns, $start_ns, {graph_replays}
-- Needs: schema
-- Per device, the kernels and copies overlapping [$start_ns, $end_ns) (NULL: no bound; the
-- activities device_time_split.sql counts) that CUDA graphs' replays ran ({graph_replays}:
-- graph_replays.sql), and the graphs' launches that ran them. Where nsys traced the graphs
-- by node, each kernel of a replay is an activity of its own: the host's issue rate
-- (tui/analysis/diagnosis.py) counts the replay's one launch instead. Where it traced them
-- whole, each replay is one activity and one launch.
-- Columns: device, replayed_kernels, replayed, graph_launches.
WITH graph_replays AS (
    {graph_replays}
), acts AS (
    SELECT id, device, kind
    FROM gpu_activities
    WHERE device IS NOT NULL AND kind IN ('kernel', 'memcpy')
      AND ($start_ns IS NULL OR end_ns > $start_ns)
      AND ($end_ns IS NULL OR start_ns < $end_ns)
)
SELECT a.device, count(*) FILTER (WHERE a.kind = 'kernel') AS replayed_kernels,
       count(*) AS replayed, count(DISTINCT r.runtime_id) AS graph_launches
FROM graph_replays AS r
JOIN acts AS a ON a.id = r.gpu_id
GROUP BY a.device
ORDER BY a.device;
