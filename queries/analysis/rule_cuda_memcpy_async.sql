-- Params: none
-- Needs: schema
-- Nsight Systems' cuda_memcpy_async rule: copies issued by an asynchronous call
-- (cudaMemcpy*Async*) from or to pageable host memory, which the driver stages through a
-- pinned buffer, so the call blocks the host as a synchronous one would. Names match
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
  AND (g.src_kind = 'Pageable' OR g.dst_kind = 'Pageable')
  AND h.name ILIKE 'cudaMemcpy%Async%'
-- a copy whose correlation id two host calls carry comes once for each: the earlier first
ORDER BY g.duration_ns DESC, g.start_ns, g.device, h.start_ns;
