-- Params: $device, $min_ns, $start_ns
-- Needs: schema
-- The GPU-idle intervals (gpu_idle) longer than $min_ns (-1: all), or the one at
-- ($device, $start_ns) when those are not NULL, into the temp table idle_gaps, each with
-- what idle_causes.sql judges it by: the copy kinds of the activities before and after it,
-- and the runtime call that launched the one after (its thread, start and end: of calls
-- with the same correlation id, the first).
-- Columns: device, start_ns, duration_ns, before_copy, after_copy, pid, tid, launch_ns,
--          launch_end_ns.
CREATE OR REPLACE TEMP TABLE idle_gaps AS
WITH picked AS (
    SELECT g.device, g.start_ns, g.duration_ns, b.copy_kind AS before_copy,
           a.copy_kind AS after_copy, a.correlation
    FROM gpu_idle AS g
    LEFT JOIN gpu_activities AS b ON b.id = g.before_id
    LEFT JOIN gpu_activities AS a ON a.id = g.after_id
    WHERE g.duration_ns > $min_ns
      AND ($device IS NULL OR g.device = $device)
      AND ($start_ns IS NULL OR g.start_ns = $start_ns)
)
-- joined from the intervals, so that a few of them touch few calls; one grouping of the
-- intervals (a device's start one), which carries their own columns along, instead of a
-- grouping of the calls joined back to the intervals (a 10 GB trace's 5.5M: 5.1-5.6 s
-- against 6.8-7.1 s)
SELECT p.device, p.start_ns, any_value(p.duration_ns) AS duration_ns,
       any_value(p.before_copy) AS before_copy, any_value(p.after_copy) AS after_copy,
       arg_min(h.pid, h.start_ns) AS pid, arg_min(h.tid, h.start_ns) AS tid,
       min(h.start_ns) AS launch_ns, arg_min(h.end_ns, h.start_ns) AS launch_end_ns
FROM picked AS p
LEFT JOIN host_activities AS h ON h.kind = 'runtime' AND h.correlation = p.correlation
GROUP BY p.device, p.start_ns;
