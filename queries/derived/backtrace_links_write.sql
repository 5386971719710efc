-- Params: none
-- Needs: arrow backtrace_inner, temp table stacks_input_backtrace_calls
-- Each launch's and memory event's frame from the CUDA backtraces, after
-- backtrace_frames_write.sql (same registered tables): the innermost frame of the
-- launching API call's chain; NULL for a call without one.
CREATE OR REPLACE TEMP TABLE backtrace_call_frame AS
SELECT c.call_id, i.node
FROM stacks_input_backtrace_calls AS c
JOIN backtrace_inner AS i USING (chain);

CREATE OR REPLACE TEMP TABLE backtrace_launches AS
SELECT l.gpu_id, l.runtime_id, l.op_id, f.node AS frame_id
FROM launches AS l
LEFT JOIN backtrace_call_frame AS f ON f.call_id = l.runtime_id
ORDER BY l.gpu_id;

DELETE FROM launches;

INSERT INTO launches SELECT * FROM backtrace_launches;

-- A memory event's frame: the innermost of the backtraced API call on its thread that
-- was running at its time (nsys times an allocation within the cudaMalloc that made it).
CREATE OR REPLACE TEMP TABLE backtrace_memory AS
WITH calls AS (
    SELECT h.pid, h.tid, h.start_ns, h.end_ns, f.node
    FROM backtrace_call_frame AS f
    JOIN host_activities AS h ON h.id = f.call_id
)
SELECT m.* REPLACE (CASE WHEN m.ts_ns <= c.end_ns THEN c.node END AS frame_id)
FROM memory_events AS m
ASOF LEFT JOIN calls AS c
  ON c.pid = m.pid AND c.tid = m.tid AND m.ts_ns >= c.start_ns
ORDER BY m.id;

DELETE FROM memory_events;

INSERT INTO memory_events SELECT * FROM backtrace_memory;

DROP TABLE backtrace_memory;
DROP TABLE backtrace_launches;
DROP TABLE backtrace_call_frame;
