-- Params: none
-- Needs: schema
-- Nsight Systems' cuda_api_sync rule: cudaDeviceSynchronize and cudaStreamSynchronize
-- calls, which block the host until the device's or stream's work is done. Names match
-- case-insensitively, as the rule's SQLite LIKE does. Longest first.
-- Columns: start_ns, duration_ns, pid, tid, api.
SELECT start_ns, duration_ns, pid, tid, name AS api
FROM host_activities
WHERE kind = 'runtime'
  AND (name ILIKE 'cudaDeviceSynchronize%' OR name ILIKE 'cudaStreamSynchronize%')
ORDER BY duration_ns DESC, start_ns, pid, tid;
