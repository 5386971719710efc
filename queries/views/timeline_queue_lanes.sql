-- Params: none
-- Needs: schema
-- The timeline's queue-length lanes (tui/views/timeline/distributed_lanes.py): each stream with
-- launches the queue length follows (dist_work.sql's `queued`: on a Kineto trace HTA's
-- launch calls, elsewhere every call the trace links to its GPU work).
-- Columns: device, stream, launches.
WITH fmt AS (
    SELECT coalesce(max(value) FILTER (WHERE key = 'format'), 'kineto') = 'kineto' AS hta
    FROM trace_meta
)
SELECT g.device, g.stream, count(*) AS launches
FROM gpu_activities AS g
JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
CROSS JOIN fmt
WHERE g.correlation IS NOT NULL
  AND (NOT fmt.hta
       OR regexp_replace(r.name, '_v[0-9]+$', '') IN
          ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', 'cudaMemcpyAsync',
           'cudaMemsetAsync'))
GROUP BY g.device, g.stream
ORDER BY g.device, g.stream;
