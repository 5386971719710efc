-- Params: none
-- Needs: temp table backtrace_keys, temp table stacks_input_backtrace_frames
-- The shown frames of each staged CUDA backtrace, outermost first (after
-- backtrace_keys.sql): chain, level (0 = outermost, consecutive within a chain), frame_key.
CREATE OR REPLACE TEMP TABLE backtrace_kept AS
SELECT f.chain, row_number() OVER (PARTITION BY f.chain ORDER BY f.depth DESC) - 1 AS level,
       k.frame_key
FROM stacks_input_backtrace_frames AS f
JOIN backtrace_keys AS k
  ON k.symbol = f.symbol AND k.module = f.module AND k.line IS NOT DISTINCT FROM f.line;
