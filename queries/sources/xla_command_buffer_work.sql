-- Params: none
-- Needs: temp table staged_gpu
-- The staged GPU work of an XLA profile run inside command buffers (its hlo_op names the
-- buffer: 'command_buffer_1'). Columns: activities, command_buffers (comma-separated)
SELECT count(*), string_agg(DISTINCT hlo_op, ', ' ORDER BY hlo_op)
FROM staged_gpu
WHERE starts_with(hlo_op, 'command_buffer');
