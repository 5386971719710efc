-- Params: $device, $min_ns, $since, $start_ns, $until
-- Needs: schema
-- The rows of the temp table idle_gaps, in the slot {rows} of idle_gaps.sql (which makes
-- it) and idle_gaps_part.sql (which adds to it): the GPU-idle intervals (gpu_idle) longer
-- than $min_ns (-1: all), or the one at ($device, $start_ns) when those are not NULL,
-- those ended by the GPU activities of ids [$since, $until) where those are not NULL
-- (tui/analysis/idle_causes.py takes a 10 GB trace's 5.5M intervals in parts of 2M: 2.3 s
-- against 4.7 s at once, whose joins spilled under the summary's share of the budget).
-- Each with what idle_causes.sql judges it by: the copy kinds of the activities before
-- and after it, and the runtime call that launched the one after (its thread, start and
-- end).
-- The launching call is the one `launches` holds (tui/derived/stacks.py: of calls with the
-- activity's correlation id, the first), looked up by id: on a 3 GB trace's 1.65M
-- intervals 0.8 s, against 1.5 s joining every runtime call by correlation id and
-- grouping (the same rows, on every sample trace).
-- Columns: device, start_ns, duration_ns, before_copy, after_copy, pid, tid, launch_ns,
--          launch_end_ns.
WITH copies AS (
    -- the activities with a copy kind, few: a join with every activity built a table of
    -- them all (a 3 GB trace's 1.65M intervals: 0.55 s against 1.0 s for the statement)
    SELECT id, copy_kind FROM gpu_activities WHERE copy_kind IS NOT NULL
)
SELECT g.device, g.start_ns, g.duration_ns, b.copy_kind AS before_copy,
       a.copy_kind AS after_copy, h.pid, h.tid, h.start_ns AS launch_ns,
       h.end_ns AS launch_end_ns
FROM gpu_idle AS g
LEFT JOIN copies AS b ON b.id = g.before_id
LEFT JOIN copies AS a ON a.id = g.after_id
LEFT JOIN launches AS l ON l.gpu_id = g.after_id
LEFT JOIN host_activities AS h ON h.id = l.runtime_id
WHERE g.duration_ns > $min_ns
  AND ($device IS NULL OR g.device = $device)
  AND ($start_ns IS NULL OR g.start_ns = $start_ns)
  AND ($since IS NULL OR g.after_id >= $since)
  AND ($until IS NULL OR g.after_id < $until)
