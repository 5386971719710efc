-- Params: $end_ns, $start_ns, {graph_launches}
-- Needs: schema
-- How the kernels that started in [$start_ns, $end_ns) (NULL: no bound) were made and
-- launched, for what the launch-bound advice can still suggest (tui/analysis/launch_means.py):
-- the kernels and their GPU time; those torch.compile's Inductor generated (Triton kernels
-- it names `triton_` and their kind: poi, per, red, tem, for: pointwise, persistent
-- reduction, reduction, template, foreach); and the GPU time of those a CUDA graph's launch
-- ran (their launching call in {graph_launches}, graph_launch_calls.sql: each kernel of the graph,
-- or the graph as one activity where nsys traced graphs whole). By time, not count: a
-- graph traced whole is one activity however many kernels it ran.
-- The graphs' launches are few: the join runs from them, not from every kernel's launch
-- (a 3 GB trace's 1.65M kernels: 0.1 s against 1.5 s).
-- Columns: kernels, kernel_ns, inductor, graphed_ns.
WITH kernels AS (
    SELECT id, name, duration_ns
    FROM gpu_activities
    WHERE kind = 'kernel'
      AND ($start_ns IS NULL OR start_ns >= $start_ns)
      AND ($end_ns IS NULL OR start_ns < $end_ns)
), graph_launches AS (
    {graph_launches}
), replayed AS (
    SELECT coalesce(sum(k.duration_ns), 0) AS graphed_ns
    FROM launches AS l
    SEMI JOIN graph_launches AS c ON c.id = l.runtime_id
    JOIN kernels AS k ON k.id = l.gpu_id
)
SELECT count(*) AS kernels, coalesce(sum(duration_ns), 0) AS kernel_ns,
       -- the prefix first: cheap, it leaves the pattern few names to match
       count(*) FILTER (WHERE starts_with(name, 'triton_')
                        AND regexp_matches(name, '^triton_(poi|per|red|tem|for)_'))
           AS inductor,
       (SELECT graphed_ns FROM replayed) AS graphed_ns
FROM kernels;
