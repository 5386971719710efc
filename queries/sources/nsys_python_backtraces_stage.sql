-- Params: none
-- Needs: arrow nsys_python_backtraces, arrow nsys_strings, temp macro nsys_unescape, temp table stacks_input_backtrace_calls, temp table stacks_input_backtrace_frames
-- Join the Python backtraces nsys took at CUDA API calls (nsys_sqlite_python_marks.sql,
-- registered as nsys_python_backtraces) to the staged native ones (nsys_backtraces_stage.sql):
-- a call with both gets a chain of its own, its Python frames outside its native frames
-- (Python calls into the library that makes the CUDA call: the two stacks meet where the
-- interpreter's frames, which backtrace_keys.sql leaves out, stood). A backtrace is the
-- call's that starts at its time on its thread. Python frames are named through
-- nsys_strings (nsys_unescape, nsys_macros.sql) and have a line; native frames' is NULL.
-- Calls with the same native chain and the same Python frames share their new chain: a
-- loop's thousands of launches through one line are a few chains.
CREATE OR REPLACE TEMP TABLE python_backtraced AS
WITH traced AS (
    SELECT c.call_id, c.chain,
           CAST(json_extract(b.json, '$."Python Backtrace on CUDA".Frames') AS VARCHAR)
               AS frames
    FROM nsys_python_backtraces AS b
    JOIN host_activities AS h
      ON h.kind = 'runtime' AND h.start_ns = b.start_ns
     AND h.pid = (b.global_tid >> 24) & 16777215 AND h.tid = b.global_tid & 16777215
    JOIN stacks_input_backtrace_calls AS c ON c.call_id = h.id
    WHERE b.json IS NOT NULL
)
SELECT call_id, chain, frames,
       (SELECT coalesce(max(chain), 0) FROM stacks_input_backtrace_calls)
           + dense_rank() OVER (ORDER BY chain, frames) AS new_chain
FROM traced;

INSERT INTO stacks_input_backtrace_frames
WITH chains AS (
    SELECT DISTINCT chain, new_chain, frames FROM python_backtraced
), python AS (
    -- depth 0 = innermost: the Python frames (innermost first) above every native one
    SELECT new_chain AS chain, 1000000 + generate_subscripts(f, 1) AS depth,
           unnest(f) AS frame
    FROM (SELECT new_chain, CAST(frames AS STRUCT("Function" BIGINT, "File" BIGINT,
                                                   "Line" INTEGER)[]) AS f
          FROM chains)
)
SELECT c.new_chain, f.depth, f.symbol, f.module, f.line
FROM chains AS c
JOIN stacks_input_backtrace_frames AS f USING (chain)
UNION ALL
SELECT p.chain, p.depth,
       nsys_unescape(coalesce(CAST(s.value AS VARCHAR), '(unknown)')),
       nsys_unescape(coalesce(CAST(m.value AS VARCHAR), '(unknown)')),
       p.frame."Line"
FROM python AS p
LEFT JOIN nsys_strings AS s ON s.id = p.frame."Function"
LEFT JOIN nsys_strings AS m ON m.id = p.frame."File";

UPDATE stacks_input_backtrace_calls AS c SET chain = p.new_chain
FROM python_backtraced AS p
WHERE c.call_id = p.call_id;

-- the native chains no call has any more
DELETE FROM stacks_input_backtrace_frames
WHERE chain NOT IN (SELECT chain FROM stacks_input_backtrace_calls);

DROP TABLE python_backtraced;
