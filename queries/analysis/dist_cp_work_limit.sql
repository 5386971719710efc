-- Params: $rows, $start_ns
-- Needs: temp table dist_work
-- Where the critical paths' work outgrows what they may hold (tui/analysis/distributed/
-- critical_path.py): the launch call start of the ($rows + 1)-th dist_work row launched at
-- $start_ns or after, in launch order; NULL when there are no more rows than that.
-- Columns: call_start_ns.
SELECT max(call_start_ns) FROM (
    SELECT call_start_ns
    FROM dist_work
    WHERE call_start_ns >= $start_ns
    ORDER BY call_start_ns
    LIMIT 1 OFFSET $rows
);
