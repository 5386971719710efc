-- Params: $copy_pattern, $end_ns, $start_ns, $sync_pattern
-- Needs: cte steps, cte waits
-- The end of window_steps.sql and window_repeats.sql, in their slot {waited}: each step
-- of the CTE steps (name, pid, tid, start_ns, end_ns) with the time its thread spent in
-- calls that wait on the GPU inside it, clipped to the step: synchronising ones
-- ($sync_pattern) and copies ($copy_pattern). The blocking calls are few: found by a
-- substring first, then the pattern.
-- Columns: name, pid, tid, start_ns, end_ns, waited_ns, by start.
waits AS (
    SELECT pid, tid, start_ns, end_ns
    FROM host_activities
    WHERE kind = 'runtime' AND (contains(name, 'ynchronize') OR contains(name, 'emcpy'))
      AND (regexp_matches(name, $sync_pattern) OR regexp_matches(name, $copy_pattern))
      AND start_ns < $end_ns AND end_ns > $start_ns
), waited AS (
    SELECT s.pid, s.tid, s.start_ns,
           sum(least(w.end_ns, s.end_ns) - greatest(w.start_ns, s.start_ns)) AS waited_ns
    FROM steps AS s
    JOIN waits AS w
      ON w.pid = s.pid AND w.tid = s.tid AND w.start_ns < s.end_ns AND w.end_ns > s.start_ns
    GROUP BY ALL
)
SELECT s.name, s.pid, s.tid, s.start_ns, s.end_ns,
       coalesce(w.waited_ns, 0)::BIGINT AS waited_ns
FROM steps AS s
LEFT JOIN waited AS w USING (pid, tid, start_ns)
ORDER BY s.start_ns, s.pid;
