-- Params: none
-- Needs: temp table idle_causes, temp table selected_gaps
-- The gaps gaps_selected.sql picked, in their order, with the idle cause idle_causes.sql
-- gave each (the temp table idle_causes, filled for at least these gaps).
-- Columns: device, start_ns, end_ns, duration_ns, before_name, after_name,
--          after_correlation, after_kind, cause, blocked_in.
SELECT s.device, s.start_ns, s.end_ns, s.duration_ns, s.before_name, s.after_name,
       s.after_correlation, s.after_kind, c.cause, c.blocked_in
FROM selected_gaps AS s
LEFT JOIN idle_causes AS c USING (device, start_ns)
ORDER BY s.gap_no;
