-- Params: $pid, $tid, {stack_lines}
-- Needs: table host_ranges
-- The Python samples of thread ($pid, $tid) inside host_ranges (host_ranges_merge.sql:
-- disjoint, so an as-of join finds the one range that may hold each sample), by the line
-- of the program each was at (python_stack_lines.sql, in {stack_lines}). Columns: frame,
-- file, samples; most first.
WITH lines AS (
    {stack_lines}
)
SELECT l.frame, l.file, count(*) AS samples
FROM python_samples AS s
ASOF JOIN host_ranges AS r ON s.ts_ns >= r.start_ns
JOIN lines AS l USING (stack)
WHERE s.ts_ns < r.end_ns AND s.pid = $pid AND s.tid = $tid
GROUP BY ALL
ORDER BY samples DESC, l.frame;
