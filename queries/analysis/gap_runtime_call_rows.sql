-- Params: none
-- Needs: schema
-- Fragment of gap_thread_calls.sql: the CUDA runtime and driver calls that are not
-- launches, copies, sets or synchronisations (each of which has an idle cause of its
-- own): the allocator's (cudaMalloc, cudaFree), module loads (cuLibraryLoadData), queries.
SELECT pid, tid, start_ns, end_ns, name FROM host_activities
WHERE kind = 'runtime'
  AND NOT regexp_matches(name, '(?i)launch|memcpy|memset|synchronize|query|^cu(da)?GetProcAddress')
