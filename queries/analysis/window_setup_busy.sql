-- Params: $first_ns, $start_ns
-- Needs: schema
-- How long some GPU activity ran between the trace's first event ($first_ns) and a
-- window's start ($start_ns): the union over devices of the activities clipped to them,
-- as work_window_setup.sql takes a set-up's (tui/analysis/window.py: a window whose first
-- steps, warming up, were moved into its set-up).
-- Columns: busy_ns.
WITH clipped AS (
    SELECT greatest(start_ns, $first_ns) AS start_ns, least(end_ns, $start_ns) AS end_ns
    FROM gpu_activities
    WHERE device IS NOT NULL AND end_ns > start_ns
      AND start_ns < $start_ns AND end_ns > $first_ns
), ordered AS (
    SELECT start_ns, end_ns,
           max(end_ns) OVER (ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before_ns
    FROM clipped
)
SELECT coalesce(sum(greatest(0, end_ns - greatest(start_ns, coalesce(before_ns, start_ns)))),
                0)::BIGINT AS busy_ns
FROM ordered;
