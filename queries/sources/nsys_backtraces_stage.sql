-- Params: none
-- Needs: arrow nsys_calls, arrow nsys_chain_frames, arrow nsys_strings
-- Stage an nsys report's CUDA API backtraces for tui/derived/backtrace_frames.py, in temp
-- tables (they are not part of the schema): stacks_input_backtrace_calls (call_id:
-- host_activities.id of an API call, chain) and stacks_input_backtrace_frames (chain, depth: 0 =
-- innermost, symbol, module, line: NULL for a native frame, a Python one's
-- (nsys_python_backtraces_stage.sql)), named through nsys_strings. Registered: nsys_calls
-- (call_id, chain), nsys_chain_frames (nsys_sqlite_callchains.sql).
CREATE OR REPLACE TEMP TABLE stacks_input_backtrace_calls AS
SELECT call_id, chain FROM nsys_calls;

CREATE OR REPLACE TEMP TABLE stacks_input_backtrace_frames AS
SELECT f.chain, f.depth,
       coalesce(CAST(s.value AS VARCHAR), '(unknown)') AS symbol,
       coalesce(CAST(m.value AS VARCHAR), '(unknown)') AS module,
       CAST(NULL AS INTEGER) AS line
FROM nsys_chain_frames AS f
LEFT JOIN nsys_strings AS s ON s.id = f.symbol_id
LEFT JOIN nsys_strings AS m ON m.id = f.module_id
WHERE f.chain IN (SELECT chain FROM nsys_calls);
