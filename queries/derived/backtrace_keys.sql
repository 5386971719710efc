-- Params: $dropped, $libraries
-- Needs: temp table stacks_input_backtrace_frames
-- One row per distinct frame of the staged CUDA backtraces (nsys_backtraces_stage.sql)
-- that the Code view shows: frame_key, symbol, module, line (a Python frame's, so that a
-- function is a frame per line it called from; NULL for a native one). Frames whose module
-- matches $dropped are left out: the profiler's own (CUPTI, its injection library), the Python
-- interpreter's and the C library's say nothing of which code launched the work; so are
-- a library's frames whose symbol nsys could not resolve (a bare address): they split
-- one path into many. $libraries: module paths that are not the user's own code.
CREATE OR REPLACE TEMP TABLE backtrace_keys AS
SELECT row_number() OVER (ORDER BY symbol, module, line) - 1 AS frame_key, symbol, module, line
FROM (
    SELECT DISTINCT symbol, module, line FROM stacks_input_backtrace_frames
    WHERE NOT regexp_matches(module, $dropped)
      AND NOT (regexp_matches(symbol, '^0x[0-9a-fA-F]+$')
               AND regexp_matches(module, $libraries))
);
