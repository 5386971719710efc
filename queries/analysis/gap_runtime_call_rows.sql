-- Params: none
-- Needs: schema
-- Fragment of gap_thread_calls.sql: the CUDA runtime and driver calls that are not
-- launches, copies, sets or synchronisations (each of which has an idle cause of its
-- own): the allocator's (cudaMalloc, cudaFree), module loads (cuLibraryLoadData), queries.
-- (Substrings, not a pattern: a trace has millions of launch calls to pass over.)
SELECT pid, tid, start_ns, end_ns, name FROM host_activities
WHERE kind = 'runtime'
  AND NOT (contains(name, 'aunch') OR contains(name, 'emcpy') OR contains(name, 'emset')
           OR contains(name, 'ynchronize') OR contains(name, 'Query')
           OR contains(name, 'GetProcAddress'))
