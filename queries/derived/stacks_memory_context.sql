-- Params: $frame_kind
-- Needs: temp table stacks_found
-- Rewrite memory_events with each event's op and Python frame (of $frame_kind, see
-- stacks_launches.sql) from what tui/derived/nesting.py found for it: a table written
-- again in id order is quicker in DuckDB than an UPDATE of most of its rows.
CREATE OR REPLACE TEMP TABLE stacks_memory AS
SELECT m.* REPLACE (f.op_id AS op_id, f.frame_id AS frame_id)
FROM memory_events AS m
LEFT JOIN (
    SELECT point_id,
           max(host_id) FILTER (WHERE kind = 'cpu_op') AS op_id,
           max(host_id) FILTER (WHERE kind = $frame_kind) AS frame_id
    FROM stacks_found
    WHERE what = 'memory'
    GROUP BY point_id
) AS f ON f.point_id = m.id
ORDER BY m.id;
