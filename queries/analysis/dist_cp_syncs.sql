-- Params: $end_ns, $start_ns
-- Needs: schema
-- Host calls that block until the GPU is done, in [$start_ns, $end_ns) (critical paths,
-- tui/analysis/distributed/critical_path.py): stream, device, context and event
-- synchronisation, and synchronous copies (cudaMemcpy without Async; `.item()` is an
-- asynchronous copy then a stream synchronisation).
-- Columns: tid, start_ns, end_ns, name, pid.
SELECT tid, start_ns, end_ns, regexp_replace(name, '_v[0-9]+$', '') AS name, pid
FROM host_activities
WHERE kind = 'runtime' AND start_ns < $end_ns AND end_ns > $start_ns
  AND (regexp_matches(name, '^(cuda|cu)(StreamSynchronize|DeviceSynchronize|EventSynchronize|CtxSynchronize|ThreadSynchronize)')
       OR (regexp_matches(name, '^(cudaMemcpy|cuMemcpy)') AND NOT contains(name, 'Async')))
ORDER BY tid, end_ns;
