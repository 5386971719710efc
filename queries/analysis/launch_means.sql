-- Params: $end_ns, $start_ns
-- Needs: schema
-- How the kernels that started in [$start_ns, $end_ns) (NULL: no bound) were made and
-- launched, for what the launch-bound advice can still suggest (tui/analysis/launch_means.py):
-- the kernels and their GPU time; those torch.compile's Inductor generated (Triton kernels
-- it names `triton_` and their kind: poi, per, red, tem, for: pointwise, persistent
-- reduction, reduction, template, foreach); and the GPU time of those a CUDA graph's launch
-- ran (their launching call a cudaGraphLaunch or cuGraphLaunch: each kernel of the graph,
-- or the graph as one activity where nsys traced graphs whole). By time, not count: a
-- graph traced whole is one activity however many kernels it ran.
-- Columns: kernels, kernel_ns, inductor, graphed_ns.
SELECT count(*) AS kernels, coalesce(sum(g.duration_ns), 0) AS kernel_ns,
       -- the prefix first: cheap, it leaves the pattern few names to match
       count(*) FILTER (WHERE starts_with(g.name, 'triton_')
                        AND regexp_matches(g.name, '^triton_(poi|per|red|tem|for)_'))
           AS inductor,
       coalesce(sum(g.duration_ns) FILTER (WHERE contains(h.name, 'GraphLaunch')), 0)
           AS graphed_ns
FROM gpu_activities AS g
LEFT JOIN launches AS l ON l.gpu_id = g.id
LEFT JOIN host_activities AS h ON h.id = l.runtime_id
WHERE g.kind = 'kernel'
  AND ($start_ns IS NULL OR g.start_ns >= $start_ns)
  AND ($end_ns IS NULL OR g.start_ns < $end_ns);
