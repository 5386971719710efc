-- Params: $delay_cutoff_ns, $runtime_cutoff_ns
-- Needs: temp table dist_work
-- dist_launch_stats.sql's figures, the same columns and rows, for a dist_work small enough
-- that every delay can be held at once: the quantiles by quantile_cont itself (the same
-- interpolation, lo + (hi - lo) * frac at q * (n - 1)), one grouping instead of the
-- counted delays' five steps, whose planning is most of a small trace's cost (3.1 against
-- 7.5 ms on a DDP rank of 1,925 GPU activities).
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
       quantile_cont(delay_ns, [0.5, 0.9, 0.99]) AS delay_ns_quantiles,
       count(*) FILTER (WHERE cpu_ns <= $runtime_cutoff_ns AND gpu_ns < cpu_ns)
           AS short_kernels,
       count(*) FILTER (WHERE cpu_ns > $runtime_cutoff_ns) AS long_launch_calls,
       count(*) FILTER (WHERE delay_ns > $delay_cutoff_ns) AS long_delays
FROM launched
GROUP BY GROUPING SETS ((device), ())
ORDER BY device NULLS FIRST;
