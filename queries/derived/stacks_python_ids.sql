-- Params: $kind, {host}
-- Needs: table stacks_staged_python, temp table {host}
-- The trace's own Python ids of the frames of kind $kind, into the table
-- stacks_work.frame_ids (id, python_id, python_parent_id, parent_by_id) for
-- stacks_python_frames.sql: the ids are stacks_staged_python's (written with the host
-- rows); parent_by_id is the frame the "Python parent id" names where that frame is one
-- level up on the thread and encloses it, else NULL (ids that disagree: missing, cyclic).
-- Empty for traces that staged no ids, and then cheap. {host}: host_activities, or before
-- it is written, the host rows whose depths are set (stacks_nesting_host.sql).
-- stacks_work is an in-memory database tui/derived/stacks.py attaches: unlike a temp
-- table, this runs on a second connection while the first finds the frames' nesting.
CREATE OR REPLACE TABLE stacks_work.frame_ids AS
WITH frames AS MATERIALIZED (
    SELECT f.id, f.pid, f.tid, f.start_ns, f.end_ns, f.depth, s.python_id, s.python_parent_id
    FROM {host} AS f
    JOIN stacks_staged_python AS s USING (id)
    WHERE f.kind = $kind
)
SELECT f.id, f.python_id, f.python_parent_id, p.id AS parent_by_id
FROM frames AS f
LEFT JOIN frames AS p
    ON p.python_id = f.python_parent_id AND p.pid = f.pid AND p.tid = f.tid
   AND p.depth = f.depth - 1 AND p.start_ns <= f.start_ns AND p.end_ns >= f.end_ns;
