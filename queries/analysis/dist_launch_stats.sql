-- Params: $delay_cutoff_ns, $held, $runtime_cutoff_ns
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
-- HTA) where every delay may be held ($held: a small trace; one grouping, whose planning
-- is most of a small trace's cost); else NULL here, and found from the count of each
-- distinct delay by dist_launch_delay_quantiles.sql (a 3 GB nsys export's 15.7M delays
-- held ran out of the summary's 286 MiB).
-- Columns: device, launches, cpu_ns_sum, cpu_ns_max, gpu_ns_sum, gpu_ns_max, delay_ns_sum,
--          delay_ns_max, delay_ns_quantiles ([p50, p90, p99] or NULL), short_kernels,
--          long_launch_calls, long_delays.
WITH launched AS (
    SELECT device, call_end_ns - call_start_ns AS cpu_ns, end_ns - start_ns AS gpu_ns,
           greatest(start_ns - call_end_ns, 0) AS delay_ns
    FROM dist_work
    WHERE stat_launch
)
SELECT device,
       count(*) AS launches,
       coalesce(sum(cpu_ns), 0)::BIGINT AS cpu_ns_sum, coalesce(max(cpu_ns), 0) AS cpu_ns_max,
       coalesce(sum(gpu_ns), 0)::BIGINT AS gpu_ns_sum, coalesce(max(gpu_ns), 0) AS gpu_ns_max,
       coalesce(sum(delay_ns), 0)::BIGINT AS delay_ns_sum,
       coalesce(max(delay_ns), 0) AS delay_ns_max,
       quantile_cont(delay_ns, [0.5, 0.9, 0.99]) FILTER (WHERE $held) AS delay_ns_quantiles,
       count(*) FILTER (WHERE cpu_ns <= $runtime_cutoff_ns AND gpu_ns < cpu_ns)
           AS short_kernels,
       count(*) FILTER (WHERE cpu_ns > $runtime_cutoff_ns) AS long_launch_calls,
       count(*) FILTER (WHERE delay_ns > $delay_cutoff_ns) AS long_delays
FROM launched
GROUP BY GROUPING SETS ((device), ())
ORDER BY device NULLS FIRST;
