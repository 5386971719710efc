-- Params: none
-- Needs: arrow range_metrics
-- NVTX ranges / user annotations per name: how many, their total and the GPU time inside
-- them, i.e. for each range instance the time some kernel ran on the GPU during it (the
-- union of the kernels overlapping the range, clipped to it, per device so that
-- concurrent streams count once), summed over the instances. Where the trace has GPU
-- metrics, range_metrics (name, sm_pct, tensor_pct, dram_pct; tui/analysis/gpu_metrics.py)
-- gives the means inside its instances; it is empty without.
-- Columns: name, count, total_ns, avg_ns, max_ns, gpu_ns, gpu_pct, kernels, sm_pct,
--          tensor_pct, dram_pct, longest_start_ns, longest_end_ns.
-- A join of every range with the kernels it overlaps is quadratic where ranges nest
-- over millions of kernels (minutes on a 3M-kernel export). Instead: the kernels' busy
-- stretches per device, with the busy time before each; then B(t), the busy time before
-- t, is one ASOF lookup, and a range [a, b) holds B(b) - B(a). Likewise the kernels
-- overlapping it number #(start < b) - #(end <= a).
WITH r AS (
    SELECT id, name, start_ns, end_ns, duration_ns
    FROM host_activities WHERE kind = 'annotation'
), kernels AS (
    SELECT device, start_ns, end_ns,
           max(end_ns) OVER (PARTITION BY device ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM gpu_activities WHERE kind = 'kernel'
), stretches AS (
    -- a new busy stretch starts where no earlier kernel reaches
    SELECT device, min(start_ns) AS start_ns, max(end_ns) AS end_ns
    FROM (SELECT *, sum(CASE WHEN reach >= start_ns THEN 0 ELSE 1 END)
                        OVER (PARTITION BY device ORDER BY start_ns, end_ns
                              ROWS UNBOUNDED PRECEDING) AS stretch
          FROM kernels)
    GROUP BY device, stretch
), busy_before AS (
    SELECT device, start_ns, end_ns,
           coalesce(sum(end_ns - start_ns) OVER (
               PARTITION BY device ORDER BY start_ns
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before_ns
    FROM stretches
), starts AS (
    -- per distinct time, how many kernels started by then (distinct: ASOF picks one row)
    SELECT device, start_ns,
           sum(count(*)) OVER (PARTITION BY device ORDER BY start_ns) AS started
    FROM gpu_activities WHERE kind = 'kernel'
    GROUP BY device, start_ns
), ends AS (
    SELECT device, end_ns,
           sum(count(*)) OVER (PARTITION BY device ORDER BY end_ns) AS ended
    FROM gpu_activities WHERE kind = 'kernel'
    GROUP BY device, end_ns
), points AS (
    -- each range's start (sign -1) and end (+1), on each device that ran kernels
    SELECT r.id, d.device, r.start_ns AS t, -1 AS sign
    FROM r, (SELECT DISTINCT device FROM stretches) AS d
    UNION ALL
    SELECT r.id, d.device, r.end_ns AS t, 1 AS sign
    FROM r, (SELECT DISTINCT device FROM stretches) AS d
), busy_at AS (
    -- B(t) and, at a range's end, #(start < t); at its start, #(end <= t)
    SELECT p.id, p.sign,
           coalesce(b.before_ns + least(p.t, b.end_ns) - b.start_ns, 0) AS busy_ns,
           CASE WHEN p.sign = 1 THEN coalesce(s.started, 0)
                ELSE coalesce(e.ended, 0) END AS kernels
    FROM points AS p
    ASOF LEFT JOIN busy_before AS b ON p.device = b.device AND p.t >= b.start_ns
    ASOF LEFT JOIN starts AS s ON p.device = s.device AND p.t > s.start_ns
    ASOF LEFT JOIN ends AS e ON p.device = e.device AND p.t >= e.end_ns
), busy AS (
    SELECT id, sum(sign * busy_ns) AS busy_ns, sum(sign * kernels) AS kernels
    FROM busy_at
    GROUP BY id
)
SELECT
    r.name,
    count(*) AS count,
    sum(r.duration_ns)::BIGINT AS total_ns,
    avg(r.duration_ns) AS avg_ns,
    max(r.duration_ns) AS max_ns,
    coalesce(sum(b.busy_ns), 0)::BIGINT AS gpu_ns,
    CASE WHEN sum(r.duration_ns) > 0
         THEN 100.0 * coalesce(sum(b.busy_ns), 0) / sum(r.duration_ns) END AS gpu_pct,
    coalesce(sum(b.kernels), 0)::BIGINT AS kernels,
    any_value(m.sm_pct) AS sm_pct,
    any_value(m.tensor_pct) AS tensor_pct,
    any_value(m.dram_pct) AS dram_pct,
    arg_max(r.start_ns, r.duration_ns) AS longest_start_ns,
    arg_max(r.end_ns, r.duration_ns) AS longest_end_ns
FROM r
LEFT JOIN busy AS b USING (id)
LEFT JOIN range_metrics AS m USING (name)
GROUP BY r.name
