-- Params: $end_ns, $start_ns
-- Needs: temp table dist_work
-- The GPU work of one step for its critical path (tui/analysis/distributed/
-- critical_path.py): the dist_work rows (dist_work.sql) whose launch call began in
-- [$start_ns, $end_ns), on any thread, by device, stream and start.
-- Columns: device, stream, start_ns, end_ns, comm (a communication kernel), call_tid,
--          call_start_ns, call_end_ns, call_pid.
SELECT device, stream, start_ns, end_ns, class = 'comm' AS comm, call_tid, call_start_ns,
       call_end_ns, call_pid
FROM dist_work
WHERE call_start_ns >= $start_ns AND call_start_ns < $end_ns
ORDER BY device, stream, start_ns, end_ns;
