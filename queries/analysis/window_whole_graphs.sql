-- Params: $end_ns, $start_ns
-- Needs: schema
-- Per device, the time within the window ($start_ns to $end_ns; NULL: the whole trace) of
-- the CUDA graphs an nsys report traced whole (nsys_sqlite_graphs.sql: `CUDA graph N`,
-- busy from a replay's start to its end, its own kernels and the idle between them unseen).
-- Columns: device, graph_ns
SELECT device,
       sum(least(end_ns, coalesce($end_ns, end_ns))
           - greatest(start_ns, coalesce($start_ns, start_ns))) AS graph_ns
FROM gpu_activities
WHERE kind = 'kernel' AND starts_with(name, 'CUDA graph ')
  AND regexp_matches(name, '^CUDA graph [0-9]+$')
  AND start_ns < coalesce($end_ns, end_ns) AND end_ns > coalesce($start_ns, start_ns)
GROUP BY device;
