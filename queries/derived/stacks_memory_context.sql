-- Params: none
-- Needs: temp table stacks_found
-- Rewrite memory_events with each event's op (k 1) and Python frame (k 2, see
-- stacks_launches.sql) from what tui/derived/nesting.py found for it: a table written
-- again in id order is quicker in DuckDB than an UPDATE of most of its rows.
CREATE OR REPLACE TEMP TABLE stacks_memory AS
SELECT m.* REPLACE (f.op_id AS op_id, f.frame_id AS frame_id)
FROM memory_events AS m
LEFT JOIN (
    SELECT point_id,
           max(host_id) FILTER (WHERE k = 1) AS op_id,
           max(host_id) FILTER (WHERE k = 2) AS frame_id
    FROM stacks_found
    WHERE is_memory
    GROUP BY point_id
) AS f ON f.point_id = m.id
ORDER BY m.id;
