-- Params: none
-- Needs: schema
-- Per rank of a combined run (views with a `rank` column, tui/runs/combine.py): GPU
-- span and busy time summed over the rank's devices, and kernel time split into NCCL
-- communication (kernel names containing 'nccl', any case) and everything else (compute).
-- Kernel times are summed durations: a compute kernel overlapping a NCCL kernel on another
-- stream counts in both. Busy is the union over streams (span minus gpu_idle), as
-- device_busy.sql. Every rank appears, also one without GPU activity (zeros).
-- comm_span_ns: from the rank's first NCCL kernel's start to its last one's end (the time
-- in which the ranks can wait for each other: a program's set-up before its first
-- collective cannot).
-- Columns: rank, devices, span_ns, busy_ns, busy_pct, comm_ns, compute_ns, comm_kernels,
--          compute_kernels, comm_span_ns.
WITH ranks AS (
    SELECT DISTINCT rank FROM trace_meta
), spans AS (
    SELECT rank, device, max(end_ns) - min(start_ns) AS span_ns
    FROM gpu_activities
    GROUP BY rank, device
), idle AS (
    SELECT rank, device, sum(duration_ns) AS idle_ns FROM gpu_idle GROUP BY rank, device
), busy AS (
    SELECT s.rank, count(*) AS devices, sum(s.span_ns) AS span_ns,
           sum(s.span_ns - coalesce(i.idle_ns, 0)) AS busy_ns
    FROM spans AS s
    LEFT JOIN idle AS i USING (rank, device)
    GROUP BY s.rank
), kernels AS (
    SELECT rank,
           sum(duration_ns) FILTER (WHERE name ILIKE '%nccl%') AS comm_ns,
           sum(duration_ns) FILTER (WHERE name NOT ILIKE '%nccl%') AS compute_ns,
           count(*) FILTER (WHERE name ILIKE '%nccl%') AS comm_kernels,
           count(*) FILTER (WHERE name NOT ILIKE '%nccl%') AS compute_kernels,
           max(end_ns) FILTER (WHERE name ILIKE '%nccl%')
               - min(start_ns) FILTER (WHERE name ILIKE '%nccl%') AS comm_span_ns
    FROM gpu_activities
    WHERE kind = 'kernel'
    GROUP BY rank
)
SELECT
    r.rank,
    coalesce(b.devices, 0)::INTEGER AS devices,
    coalesce(b.span_ns, 0)::BIGINT AS span_ns,
    coalesce(b.busy_ns, 0)::BIGINT AS busy_ns,
    CASE WHEN b.span_ns > 0 THEN 100.0 * b.busy_ns / b.span_ns ELSE 0.0 END AS busy_pct,
    coalesce(k.comm_ns, 0)::BIGINT AS comm_ns,
    coalesce(k.compute_ns, 0)::BIGINT AS compute_ns,
    coalesce(k.comm_kernels, 0)::BIGINT AS comm_kernels,
    coalesce(k.compute_kernels, 0)::BIGINT AS compute_kernels,
    coalesce(k.comm_span_ns, 0)::BIGINT AS comm_span_ns
FROM ranks AS r
LEFT JOIN busy AS b USING (rank)
LEFT JOIN kernels AS k USING (rank)
ORDER BY r.rank;
