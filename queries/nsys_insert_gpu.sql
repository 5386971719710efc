-- Move a batch of GPU rows fetched from the nsys export (registered as nsys_batch).
INSERT INTO staged_gpu
SELECT kind, device, stream, start_ns, end_ns, end_ns - start_ns, CAST(name AS VARCHAR),
       correlation,
       grid_x, grid_y, grid_z, block_x, block_y, block_z,
       registers_per_thread, shared_memory_bytes, bytes, copy_kind, src_kind, dst_kind
FROM nsys_batch
WHERE start_ns IS NOT NULL AND end_ns >= start_ns
  AND start_ns >= -4611686018427387903 AND end_ns <= 4611686018427387903;
