-- Params: {graph_launches}
-- Needs: schema
-- Kernels a CUDA graph's replay ran (their launching call in {graph_launches},
-- graph_launch_calls.sql: each kernel of a graph traced by node, or the graph as one activity where
-- nsys traced graphs whole), by name: kernels no host call launched on its own, which
-- the launch_overhead finding (tui/analysis/findings.py) leaves out of its launches. From
-- the graphs' launches, which are few (launch_means.sql).
-- Columns: name, replayed.
WITH graph_launches AS (
    {graph_launches}
)
SELECT g.name, count(*) AS replayed
FROM launches AS l
SEMI JOIN graph_launches AS c ON c.id = l.runtime_id
JOIN gpu_activities AS g ON g.id = l.gpu_id
WHERE g.kind = 'kernel'
GROUP BY g.name;
