-- Params: {launchers}, {stack_lines}
-- Needs: schema
-- Where the Python samples of each gap of `context_gaps` (gap_overlaps.sql) were taken on
-- the thread that launched the work ending it: the line of the program holding most of
-- them (python_stack_lines.sql, in {stack_lines}). One row per gap with samples: gap_no,
-- samples (the thread's in the gap), frame, at (its samples). Each sample finds the one
-- gap of each device that may hold it by an as-of join, as in gap_samples.sql.
WITH launcher AS (
    {launchers}
), lines AS (
    {stack_lines}
), candidates AS (
    SELECT s.ts_ns, s.pid, s.tid, s.stack, d.device
    FROM python_samples AS s
    JOIN (SELECT DISTINCT pid, tid FROM launcher) AS t USING (pid, tid)
    CROSS JOIN (SELECT DISTINCT device FROM launcher) AS d
), taken AS (
    SELECT l.gap_no, n.frame, count(*) AS samples
    FROM candidates AS s
    ASOF JOIN launcher AS l ON l.device = s.device AND s.ts_ns >= l.start_ns
    JOIN lines AS n USING (stack)
    WHERE s.ts_ns < l.end_ns AND s.pid = l.pid AND s.tid = l.tid
    GROUP BY l.gap_no, n.frame
)
SELECT gap_no, sum(samples) AS samples, arg_max(frame, (samples, frame)) AS frame,
       max(samples) AS at
FROM taken
GROUP BY gap_no
ORDER BY gap_no;
