-- Params: none
-- Needs: schema
-- Nsight Systems' cuda_memcpy_sync rule: copies issued by a synchronous call (cudaMemcpy*
-- without Async), which blocks the host until the copy is done; host-to-device copies of
-- 64,000 bytes or less are left out (the driver returns before they finish), and so are
-- copies whose source and destination GPU are known to be the same one. Names match
-- case-insensitively, as the rule's SQLite LIKE does. Each row is the copy on the GPU;
-- api_start_ns / api_duration_ns are the host call behind it. Longest first.
-- Columns: start_ns, duration_ns, device, stream, pid, tid, api, bytes, copy_kind,
--          src_kind, dst_kind, api_start_ns, api_duration_ns.
SELECT
    g.start_ns, g.duration_ns, g.device, g.stream, h.pid, h.tid, h.name AS api, g.bytes,
    g.copy_kind, g.src_kind, g.dst_kind,
    h.start_ns AS api_start_ns, h.duration_ns AS api_duration_ns
FROM gpu_activities AS g
JOIN host_activities AS h ON h.correlation = g.correlation AND h.kind = 'runtime'
WHERE g.kind = 'memcpy'
  AND NOT (g.bytes <= 64000 AND g.copy_kind = 'HtoD')
  AND NOT (g.src_device IS NOT NULL AND g.src_device = g.dst_device)
  AND h.name ILIKE 'cudaMemcpy%'
  AND h.name NOT ILIKE '%Async%'
-- a copy whose correlation id two host calls carry comes once for each: the earlier first
ORDER BY g.duration_ns DESC, g.start_ns, g.device, h.start_ns;
