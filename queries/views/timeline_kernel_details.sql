-- Params: $id
-- Needs: schema
-- Everything the details panel shows about one GPU activity: its own columns, the host
-- call that launched it (same correlation id), and on the launching thread the innermost
-- CPU op and the annotation (NVTX) ranges open when the launch call started.
-- Given:  $id (gpu_activities.id)
-- Columns: kind, name, device, stream, start_ns, duration_ns, grid_x/y/z, block_x/y/z,
--          registers_per_thread, shared_memory_bytes, bytes, copy_kind, src_kind,
--          dst_kind, correlation, launch_name, launch_pid, launch_tid, launch_start_ns,
--          launch_duration_ns, cpu_op, nvtx_path (outermost first, joined by ' > ')
WITH k AS (
    SELECT * FROM gpu_activities WHERE id = $id
), launch AS (
    SELECT h.name, h.pid, h.tid, h.start_ns, h.end_ns, h.duration_ns
    FROM host_activities AS h, k
    WHERE h.kind = 'runtime' AND h.correlation = k.correlation AND h.start_ns <= k.start_ns
    ORDER BY h.start_ns DESC
    LIMIT 1
), op AS (
    SELECT h.name
    FROM host_activities AS h, launch AS l
    WHERE h.kind = 'cpu_op' AND h.pid = l.pid AND h.tid = l.tid
      AND h.start_ns <= l.start_ns AND h.end_ns >= l.end_ns
    ORDER BY h.depth DESC, h.start_ns DESC
    LIMIT 1
), nvtx AS (
    SELECT string_agg(h.name, ' > ' ORDER BY h.depth, h.start_ns) AS path
    FROM host_activities AS h, launch AS l
    WHERE h.kind = 'annotation' AND h.pid = l.pid AND h.tid = l.tid
      AND h.start_ns <= l.start_ns AND h.end_ns >= l.end_ns
)
SELECT k.kind, k.name, k.device, k.stream, k.start_ns, k.duration_ns,
       k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z,
       k.registers_per_thread, k.shared_memory_bytes, k.bytes, k.copy_kind, k.src_kind,
       k.dst_kind, k.correlation,
       l.name AS launch_name, l.pid AS launch_pid, l.tid AS launch_tid,
       l.start_ns AS launch_start_ns, l.duration_ns AS launch_duration_ns,
       (SELECT name FROM op) AS cpu_op, (SELECT path FROM nvtx) AS nvtx_path
FROM k
LEFT JOIN launch AS l ON true
