-- Params: $name
-- Needs: schema
-- Every launch of one kernel name, for the instance list: where and when it ran, its
-- shape, and the host call that launched it (same correlation id, the latest such call
-- starting before the kernel, as timeline_kernel_details.sql picks it).
-- Given:  $name (gpu_activities.name)
-- Columns: id, device, stream, start_ns, end_ns, duration_ns, grid, block, threads,
--          registers_per_thread, launch_name, launch_tid
WITH k AS (
    SELECT * FROM gpu_activities WHERE kind = 'kernel' AND name = $name
), launch AS (
    SELECT k.id, arg_max(h.name, h.start_ns) AS launch_name, arg_max(h.tid, h.start_ns) AS tid
    FROM k
    JOIN host_activities AS h
      ON h.kind = 'runtime' AND h.correlation = k.correlation AND h.start_ns <= k.start_ns
    GROUP BY k.id
)
SELECT
    k.id, k.device, k.stream, k.start_ns, k.end_ns, k.duration_ns,
    CASE WHEN k.grid_x IS NOT NULL THEN concat_ws('×', k.grid_x, k.grid_y, k.grid_z) END AS grid,
    CASE WHEN k.block_x IS NOT NULL THEN concat_ws('×', k.block_x, k.block_y, k.block_z) END
        AS block,
    k.grid_x::BIGINT * k.grid_y * k.grid_z * k.block_x * k.block_y * k.block_z AS threads,
    k.registers_per_thread,
    l.launch_name,
    l.tid AS launch_tid
FROM k
LEFT JOIN launch AS l USING (id)
