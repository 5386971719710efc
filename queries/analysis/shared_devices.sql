-- Params: none
-- Needs: schema
-- The GPUs that several processes ran work on at once, in an nsys report (two jobs on one
-- GPU, a notebook beside a run): an activity's process is its correlation id's high bits
-- (nsys' ids are each process's own, pid * 2^32 + its id: tui/sources/nsys_sqlite.py).
-- The GPU switches between processes' contexts (time-slicing, without MPS), so while two
-- have work on it, each one's work waits on the other's and its kernels' times count the
-- other's. Each such GPU's processes with their activities and time, and how long two or
-- more of them had work in flight at once (a sweep over each process's activities, then
-- over the processes).
-- Columns: device, pid, activities, busy_ns (the process's activities' summed time),
--          overlap_ns (the GPU's time with two or more processes' work in flight); by
--          device, pid. No row: no GPU ran several processes' work at once.
WITH work AS (
    SELECT device, correlation >> 32 AS pid, start_ns, end_ns
    FROM gpu_activities
    WHERE device IS NOT NULL AND correlation IS NOT NULL AND end_ns > start_ns
), shared AS (
    SELECT device FROM work GROUP BY device HAVING count(DISTINCT pid) >= 2
), edges AS (
    SELECT device, pid, start_ns AS t, 1 AS d FROM work WHERE device IN (FROM shared)
    UNION ALL
    SELECT device, pid, end_ns AS t, -1 AS d FROM work WHERE device IN (FROM shared)
), in_flight AS (
    -- each process's activities in flight after each of its edges (ends before starts)
    SELECT device, pid, t, d,
           sum(d) OVER (PARTITION BY device, pid ORDER BY t, d ROWS UNBOUNDED PRECEDING)
               AS flying
    FROM edges
), process_edges AS (
    -- where a process comes to have work in flight, or stops having any
    SELECT device, t, d FROM in_flight
    WHERE (d = 1 AND flying = 1) OR (d = -1 AND flying = 0)
), processes AS (
    SELECT device, t,
           sum(d) OVER (PARTITION BY device ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS busy,
           lead(t) OVER (PARTITION BY device ORDER BY t, d) AS next_t
    FROM process_edges
), overlap AS (
    SELECT device, coalesce(sum(next_t - t) FILTER (WHERE busy >= 2), 0) AS overlap_ns
    FROM processes
    GROUP BY device
)
SELECT w.device, w.pid, count(*) AS activities, sum(w.end_ns - w.start_ns) AS busy_ns,
       o.overlap_ns
FROM work AS w
JOIN overlap AS o USING (device)
WHERE o.overlap_ns > 0
GROUP BY w.device, w.pid, o.overlap_ns
ORDER BY w.device, w.pid;
