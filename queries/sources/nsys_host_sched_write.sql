-- Params: none
-- Needs: table nsys_sched
-- Context switches read from the export (registered as nsys_sched: global_tid, ts_ns,
-- sched_in, cpu) into thread_sched: each switch in paired with the thread's next switch,
-- where that is a switch out (a switch out with none before it, or the last switch in of
-- the capture, is no whole stretch and is left out).
INSERT INTO thread_sched
WITH ordered AS (
    SELECT global_tid, ts_ns, sched_in, cpu,
           lead(ts_ns) OVER (PARTITION BY global_tid ORDER BY ts_ns, sched_in) AS next_ns,
           lead(sched_in) OVER (PARTITION BY global_tid ORDER BY ts_ns, sched_in) AS next_in
    FROM nsys_sched
    WHERE global_tid IS NOT NULL AND ts_ns IS NOT NULL
)
SELECT (global_tid >> 24) & 16777215 AS pid,
       global_tid & 16777215 AS tid,
       ts_ns AS start_ns, next_ns AS end_ns, cpu
FROM ordered
WHERE sched_in <> 0 AND next_in = 0
ORDER BY start_ns, pid, tid;
