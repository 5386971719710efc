-- Params: $kind
-- Needs: none
-- The temp table stacks_rows_written: that the launch stacks' rows (python_frames,
-- launches, the memory events' context) were written before host_activities was
-- (tui/derived/stacks.py stage_stacks_beside_write), and the kind of host rows the frames
-- were taken from ('python', or 'annotation'), which build_stacks reads, then drops.
CREATE OR REPLACE TEMP TABLE stacks_rows_written AS SELECT $kind AS kind;
