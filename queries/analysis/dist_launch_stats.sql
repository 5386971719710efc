-- Params: $delay_cutoff_ns, $runtime_cutoff_ns
-- Needs: temp table dist_work
-- CUDA launch statistics over dist_work (dist_work.sql), as Holistic Trace Analysis 0.5.0's
-- get_cuda_kernel_launch_stats (cuda_kernel_analysis.py) computes them: every activity
-- dist_work marks stat_launch (on a Kineto trace, as HTA: launched by cudaLaunchKernel,
-- cudaLaunchKernelExC, cudaMemcpyAsync or cudaMemsetAsync).
-- cpu: the launch call's duration; gpu: the activity's; delay: from the call's end to the
-- activity's start, 0 when it started earlier. Outliers by HTA's cutoffs: short kernels
-- (call <= $runtime_cutoff_ns and the kernel shorter than its call), long launch calls
-- (call > $runtime_cutoff_ns), long delays (> $delay_cutoff_ns).
-- Per device and over the whole trace (device NULL). The delays' quantiles are
-- quantile_cont's (linear between the ranks either side of q * (n - 1), as pandas' in
-- HTA), found from the count of each distinct delay rather than by holding every delay:
-- a 3 GB nsys export's 15.7M ran out of the summary's 286 MiB that way.
-- Columns: device, launches, cpu_ns_sum, cpu_ns_max, gpu_ns_sum, gpu_ns_max, delay_ns_sum,
--          delay_ns_max, delay_ns_quantiles ([p50, p90, p99]), short_kernels,
--          long_launch_calls, long_delays.
WITH launched AS (
    SELECT device, call_end_ns - call_start_ns AS cpu_ns, end_ns - start_ns AS gpu_ns,
           greatest(start_ns - call_end_ns, 0) AS delay_ns
    FROM dist_work
    WHERE stat_launch
), stats AS (
    SELECT device,
           count(*) AS launches,
           coalesce(sum(cpu_ns), 0)::BIGINT AS cpu_ns_sum, coalesce(max(cpu_ns), 0) AS cpu_ns_max,
           coalesce(sum(gpu_ns), 0)::BIGINT AS gpu_ns_sum, coalesce(max(gpu_ns), 0) AS gpu_ns_max,
           coalesce(sum(delay_ns), 0)::BIGINT AS delay_ns_sum,
           coalesce(max(delay_ns), 0) AS delay_ns_max,
           count(*) FILTER (WHERE cpu_ns <= $runtime_cutoff_ns AND gpu_ns < cpu_ns)
               AS short_kernels,
           count(*) FILTER (WHERE cpu_ns > $runtime_cutoff_ns) AS long_launch_calls,
           count(*) FILTER (WHERE delay_ns > $delay_cutoff_ns) AS long_delays
    FROM launched
    GROUP BY GROUPING SETS ((device), ())
), delays AS (  -- each distinct delay with its count, per device and over all (device NULL)
    SELECT device, delay_ns, count(*) AS n
    FROM launched
    WHERE delay_ns IS NOT NULL
    GROUP BY GROUPING SETS ((device, delay_ns), (delay_ns))
), ranked AS (  -- the delays in order: up_to, how many are no longer; total, how many
    SELECT device, delay_ns, sum(n) OVER (PARTITION BY device ORDER BY delay_ns) AS up_to,
           sum(n) OVER (PARTITION BY device) AS total
    FROM delays
), wanted AS (  -- the 0-based ranks either side of each quantile's position
    SELECT DISTINCT r.device, q.i, q.q * (r.total - 1) AS pos
    FROM ranked AS r, (VALUES (1, 0.5::DOUBLE), (2, 0.9::DOUBLE), (3, 0.99::DOUBLE)) AS q(i, q)
), quantiles AS (
    SELECT w.device, w.i,
           min(r.delay_ns) FILTER (WHERE r.up_to > floor(w.pos)) AS lo,
           min(r.delay_ns) FILTER (WHERE r.up_to > ceil(w.pos)) AS hi,
           any_value(w.pos - floor(w.pos)) AS frac
    FROM wanted AS w
    JOIN ranked AS r ON r.device IS NOT DISTINCT FROM w.device
    GROUP BY w.device, w.i
)
SELECT s.device, s.launches, s.cpu_ns_sum, s.cpu_ns_max, s.gpu_ns_sum, s.gpu_ns_max,
       s.delay_ns_sum, s.delay_ns_max,
       (SELECT list(q.lo + (q.hi - q.lo) * q.frac ORDER BY q.i) FROM quantiles AS q
        WHERE q.device IS NOT DISTINCT FROM s.device) AS delay_ns_quantiles,
       s.short_kernels, s.long_launch_calls, s.long_delays
FROM stats AS s
ORDER BY s.device NULLS FIRST;
