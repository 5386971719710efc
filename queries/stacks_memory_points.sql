-- The points stacks_innermost.sql looks up for memory events: each event at its time.
CREATE OR REPLACE TEMP TABLE stacks_points AS
SELECT id AS point_id, NULL::BIGINT AS runtime_id, pid, tid, ts_ns AS t
FROM memory_events;
