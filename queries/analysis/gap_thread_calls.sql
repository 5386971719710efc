-- Params: {calls}, {launchers}
-- Needs: none
-- The call of {calls} (OS runtime calls, os_calls: a sleep, a wait on a queue; or CUDA
-- runtime and driver calls other than launches: cudaFree, cuLibraryLoadData) that held,
-- longest, the thread that launched the work ending each gap of `context_gaps` (its launch
-- call, by correlation id), inside the gap. One row per gap with such a call: gap_no,
-- name, ns (its time inside the gap, summed over that name's calls). Each gap's calls are
-- the last one of the thread to start before it and those starting inside it: each found
-- by an as-of join, no call compared with every gap.
WITH launcher AS (
    {launchers}
), calls AS (
    SELECT o.pid, o.tid, o.start_ns, o.end_ns, o.name
    FROM ({calls}) AS o
    JOIN (SELECT DISTINCT pid, tid FROM launcher) AS t USING (pid, tid)
), before_gap AS (  -- the thread's last call to start before the gap: it may run into it
    SELECT l.gap_no, c.name,
           least(c.end_ns, l.end_ns) - greatest(c.start_ns, l.start_ns) AS ns
    FROM launcher AS l
    ASOF JOIN calls AS c ON c.pid = l.pid AND c.tid = l.tid AND c.start_ns <= l.start_ns
), inside AS (  -- the calls starting inside a gap, each its device's gap found by the start
    SELECT l.gap_no, c.name, least(c.end_ns, l.end_ns) - c.start_ns AS ns
    FROM calls AS c
    CROSS JOIN (SELECT DISTINCT device FROM launcher) AS d
    ASOF JOIN launcher AS l
      ON l.device = d.device AND l.pid = c.pid AND l.tid = c.tid AND c.start_ns > l.start_ns
    WHERE c.start_ns < l.end_ns
), held AS (
    SELECT gap_no, name, sum(ns) AS ns
    FROM (SELECT * FROM before_gap UNION ALL SELECT * FROM inside)
    WHERE ns > 0
    GROUP BY gap_no, name
)
SELECT gap_no, arg_max(name, ns) AS name, max(ns)::BIGINT AS ns
FROM held
GROUP BY gap_no
ORDER BY gap_no;
