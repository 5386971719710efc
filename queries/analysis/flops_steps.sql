-- Params: $profiler_step, $step_name
-- Needs: arrow flop_peaks
-- The FLOPs of each training step and its wall time. A step is a Kineto `ProfilerStep#N`
-- annotation, else the outermost annotation (NVTX) ranges named like a step
-- ($profiler_step, $step_name: tui/core/steps.py), as rank_step_ranges.sql finds them. A
-- step's kernels are those launched by the runtime calls that began inside its host
-- range, on any thread (the backward's autograd thread too); its wall time runs from its
-- start, or from the end of the previous step's last kernel if later (work dispatched
-- ahead, as JAX does, runs after the step's host range), to its end or to the end of the
-- last kernel it launched, if later.
-- Columns: step, start_ns, end_ns, flops, ideal_s (the time its FLOPs would take at the
--          peaks of $flop_peaks; NULL where one is unknown), devices.
WITH candidates AS (
    SELECT name, start_ns, end_ns, depth,
           regexp_matches(name, $profiler_step) AS profiler_step
    FROM host_activities
    WHERE kind = 'annotation' AND end_ns > start_ns
      AND (regexp_matches(name, $profiler_step) OR regexp_matches(name, $step_name))
), family AS (  -- ProfilerStep#N wins where the trace has both
    SELECT * FROM candidates
    QUALIFY profiler_step = max(profiler_step) OVER ()
), steps AS (
    SELECT * FROM family
    QUALIFY depth = min(depth) OVER ()
), calls AS (  -- each launch call in the step that began last at or before it
    SELECT s.start_ns AS step_start, c.correlation
    FROM (SELECT start_ns, correlation FROM host_activities
          WHERE kind = 'runtime' AND correlation IS NOT NULL) AS c
    ASOF JOIN steps AS s ON c.start_ns >= s.start_ns
    WHERE c.start_ns < s.end_ns
), work AS (  -- summed in the GPU rows' order: a sum of doubles depends on its order,
               -- which the join's plan must not decide (db.light_plans joins as written)
    SELECT c.step_start, max(g.end_ns) AS last_end_ns, sum(k.flops ORDER BY g.id) AS flops,
           CASE WHEN count(p.peak) = count(k.flops)
                THEN sum(k.flops / p.peak ORDER BY g.id) END AS ideal_s,
           count(DISTINCT g.device) FILTER (WHERE k.flops IS NOT NULL) AS devices
    FROM calls AS c
    JOIN gpu_activities AS g ON g.correlation = c.correlation
    LEFT JOIN kernel_flops AS k ON k.gpu_id = g.id
    LEFT JOIN flop_peaks AS p ON p.device = g.device AND p.precision = k.precision
    GROUP BY c.step_start
), bounds AS (
    SELECT s.name, s.start_ns AS host_start_ns,
           greatest(s.end_ns, coalesce(w.last_end_ns, s.end_ns)) AS end_ns,
           max(w.last_end_ns) OVER (ORDER BY s.start_ns ROWS BETWEEN UNBOUNDED PRECEDING
                                    AND 1 PRECEDING) AS before_ns,
           w.flops, w.ideal_s, w.devices
    FROM steps AS s
    LEFT JOIN work AS w ON w.step_start = s.start_ns
)
SELECT name AS step, greatest(host_start_ns, coalesce(before_ns, host_start_ns)) AS start_ns,
       end_ns, coalesce(flops, 0) AS flops, ideal_s, coalesce(devices, 0) AS devices
FROM bounds
ORDER BY host_start_ns;
