-- Params: none
-- Needs: schema
-- Nsight Systems' cuda_memset_sync rule: sets of pinned or managed memory issued by a
-- synchronous call (cudaMemset* without Async), which blocks the host. Names match
-- case-insensitively, as the rule's SQLite LIKE does. Each row is the set on the GPU;
-- api_start_ns / api_duration_ns are the host call behind it. Longest first.
-- Columns: start_ns, duration_ns, device, stream, pid, tid, api, bytes, memory_kind,
--          api_start_ns, api_duration_ns.
SELECT
    g.start_ns, g.duration_ns, g.device, g.stream, h.pid, h.tid, h.name AS api, g.bytes,
    g.dst_kind AS memory_kind,
    h.start_ns AS api_start_ns, h.duration_ns AS api_duration_ns
FROM gpu_activities AS g
JOIN host_activities AS h ON h.correlation = g.correlation AND h.kind = 'runtime'
WHERE g.kind = 'memset'
  AND g.dst_kind IN ('Pinned', 'Managed')
  AND h.name ILIKE 'cudaMemset%'
  AND h.name NOT ILIKE '%async%'
-- a copy whose correlation id two host calls carry comes once for each: the earlier first
ORDER BY g.duration_ns DESC, g.start_ns, g.device, h.start_ns;
