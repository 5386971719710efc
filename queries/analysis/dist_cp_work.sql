-- Params: $end_ns, $start_ns
-- Needs: temp table dist_work
-- The GPU work of one step for its critical path (tui/analysis/distributed/
-- critical_path.py): the dist_work rows (dist_work.sql) whose launch call began in
-- [$start_ns, $end_ns), on any thread, by device, stream and start.
-- peer_wait: a communication kernel that waited for another rank to arrive: it ran at
-- least twice as long as the fastest kernel of its name and message size on its device
-- in the window (whose time is the transfer alone; the size, elements in and out, from
-- the collective call that launched it where the trace has one), and 30 µs (HTA's
-- consecutive_kernel_delay) or more longer.
-- Columns: device, stream, start_ns, end_ns, comm (a communication kernel), call_tid,
--          call_start_ns, call_end_ns, call_pid, peer_wait.
WITH sizes AS (
    SELECT correlation, max(coalesce(in_nelems, 0) + coalesce(out_nelems, 0)) AS nelems
    FROM collectives
    WHERE correlation IS NOT NULL
    GROUP BY correlation
), comm AS (
    SELECT w.id, w.end_ns - w.start_ns AS dur_ns,
           min(w.end_ns - w.start_ns) OVER (PARTITION BY w.device, g.name, s.nelems)
               AS fastest_ns
    FROM dist_work AS w
    JOIN gpu_activities AS g ON g.id = w.id
    LEFT JOIN sizes AS s ON s.correlation = g.correlation
    WHERE w.class = 'comm'
)
SELECT w.device, w.stream, w.start_ns, w.end_ns, w.class = 'comm' AS comm, w.call_tid,
       w.call_start_ns, w.call_end_ns, w.call_pid,
       coalesce(c.dur_ns >= 2 * c.fastest_ns AND c.dur_ns - c.fastest_ns >= 30000, FALSE)
           AS peer_wait
FROM dist_work AS w
LEFT JOIN comm AS c ON c.id = w.id
WHERE w.call_start_ns >= $start_ns AND w.call_start_ns < $end_ns
ORDER BY w.device, w.stream, w.start_ns, w.end_ns;
