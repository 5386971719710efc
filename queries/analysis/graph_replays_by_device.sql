-- Params: $end_ns, $start_ns, {graph_launches}
-- Needs: schema
-- Per device, the kernels and copies overlapping [$start_ns, $end_ns) (NULL: no bound; the
-- activities device_time_split.sql counts) that a CUDA graph's replay ran: their launching
-- call in {graph_launches} (graph_launch_calls.sql). Where nsys traced the graphs by node,
-- each kernel of a replay is an activity of its own, launched by no call of its own: the
-- host's issue rate (tui/analysis/diagnosis.py) counts the replay's one launch instead.
-- Where it traced them whole, each replay is one activity and one launch. From the
-- graphs' launches, which are few (launch_means.sql).
-- Columns: device, replayed_kernels, replayed, graph_launches.
WITH graph_launches AS (
    {graph_launches}
), acts AS (
    SELECT id, device, kind
    FROM gpu_activities
    WHERE device IS NOT NULL AND kind IN ('kernel', 'memcpy')
      AND ($start_ns IS NULL OR end_ns > $start_ns)
      AND ($end_ns IS NULL OR start_ns < $end_ns)
)
SELECT a.device, count(*) FILTER (WHERE a.kind = 'kernel') AS replayed_kernels,
       count(*) AS replayed, count(DISTINCT l.runtime_id) AS graph_launches
FROM launches AS l
SEMI JOIN graph_launches AS c ON c.id = l.runtime_id
JOIN acts AS a ON a.id = l.gpu_id
GROUP BY a.device
ORDER BY a.device;
