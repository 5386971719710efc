-- Move a batch of GPU rows fetched from the nsys export (registered as nsys_batch) into
-- the staging table nsys_gpu. Names are cast to text: an empty result set comes over
-- typed int64, and a damaged StringIds may hold BLOBs.
INSERT INTO nsys_gpu BY NAME
SELECT kind, device, stream, start_ns, end_ns, end_ns - start_ns AS duration_ns,
       name_id, CAST(name AS VARCHAR) AS name, correlation,
       grid_x, grid_y, grid_z, block_x, block_y, block_z,
       registers_per_thread, shared_memory_bytes, bytes, copy_kind, src_kind, dst_kind
FROM nsys_batch
WHERE start_ns IS NOT NULL AND end_ns >= start_ns
  AND start_ns >= -4611686018427387903 AND end_ns <= 4611686018427387903;
