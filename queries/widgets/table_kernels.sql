-- Params: none
-- Needs: arrow kernel_names
-- The kernel table's rows: per kernel name the statistics of kernel_stats.sql (what
-- `--summary --json` reports, the same aggregates), plus its short name and category
-- from the registered Arrow table `kernel_names` (name, short, category, and where the
-- trace has GPU metrics the means inside the name's instances: sm_pct, tensor_pct,
-- dram_pct, from tui/analysis/gpu_metrics.py; where the trace tells FLOPs the achieved
-- FLOP/s over its instances and MFU in %: flops_per_s, mfu_pct, from tui/analysis/flops.py;
-- NULL without).
-- Columns: name, short, category, sm_pct, tensor_pct, dram_pct, flops_per_s, mfu_pct, count,
--          total_ns, avg_ns, median_ns, min_ns, max_ns, percent.
SELECT
    k.name,
    n.short,
    n.category,
    any_value(n.sm_pct) AS sm_pct,
    any_value(n.tensor_pct) AS tensor_pct,
    any_value(n.dram_pct) AS dram_pct,
    any_value(n.flops_per_s) AS flops_per_s,
    any_value(n.mfu_pct) AS mfu_pct,
    count(*) AS count,
    sum(k.duration_ns)::BIGINT AS total_ns,
    avg(k.duration_ns) AS avg_ns,
    median(k.duration_ns)::DOUBLE AS median_ns,
    min(k.duration_ns) AS min_ns,
    max(k.duration_ns) AS max_ns,
    100.0 * sum(k.duration_ns) / sum(sum(k.duration_ns)) OVER () AS percent
FROM gpu_activities AS k
JOIN kernel_names AS n USING (name)
WHERE k.kind = 'kernel'
GROUP BY k.name, n.short, n.category
