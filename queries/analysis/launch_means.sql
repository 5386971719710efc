-- Params: $end_ns, $start_ns, {graph_replays}
-- Needs: schema
-- How the kernels that started in [$start_ns, $end_ns) (NULL: no bound) were made and
-- launched, for what the launch-bound advice can still suggest (tui/analysis/launch_means.py):
-- the kernels and their GPU time; those torch.compile's Inductor generated (Triton kernels
-- it names `triton_` and their kind: poi, per, red, tem, for: pointwise, persistent
-- reduction, reduction, template, foreach); and the GPU time of those CUDA graphs' replays
-- ran ({graph_replays}: graph_replays.sql, each kernel of a graph, or the graph as one
-- activity where nsys traced graphs whole). By time, not count: a graph traced whole is one
-- activity however many kernels it ran.
-- Columns: kernels, kernel_ns, inductor, graphed_ns.
WITH kernels AS (
    SELECT id, name, duration_ns
    FROM gpu_activities
    WHERE kind = 'kernel'
      AND ($start_ns IS NULL OR start_ns >= $start_ns)
      AND ($end_ns IS NULL OR start_ns < $end_ns)
), graph_replays AS (
    {graph_replays}
), replayed AS (
    SELECT coalesce(sum(k.duration_ns), 0) AS graphed_ns
    FROM graph_replays AS r
    JOIN kernels AS k ON k.id = r.gpu_id
)
SELECT count(*) AS kernels, coalesce(sum(duration_ns), 0) AS kernel_ns,
       -- the prefix first: cheap, it leaves the pattern few names to match
       count(*) FILTER (WHERE starts_with(name, 'triton_')
                        AND regexp_matches(name, '^triton_(poi|per|red|tem|for)_'))
           AS inductor,
       (SELECT graphed_ns FROM replayed) AS graphed_ns
FROM kernels;
