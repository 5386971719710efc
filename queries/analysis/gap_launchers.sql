-- Params: none
-- Needs: table selected_gaps
-- Each gap of `context_gaps` with the thread that launched the work ending it (its launch
-- call, by correlation id), in the slot {launchers} of gap_samples.sql,
-- gap_python_lines.sql and gap_thread_calls.sql.
-- Columns: gap_no, device, start_ns, end_ns, pid, tid
SELECT g.gap_no, g.device, g.start_ns, g.end_ns,
       arg_min(h.pid, h.start_ns) AS pid, arg_min(h.tid, h.start_ns) AS tid
FROM selected_gaps AS g
JOIN host_activities AS h ON h.kind = 'runtime' AND h.correlation = g.after_correlation
WHERE g.with_context
GROUP BY g.gap_no, g.device, g.start_ns, g.end_ns
