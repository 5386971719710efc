-- Params: $cutoff_ns, $hta_calls, $since, $until
-- Needs: cte links
-- The rows of the temp table dist_work, the GPU work the distributed figures read
-- (tui/analysis/distributed/), over the GPU activities of ids [$since, $until), in the slot
-- {rows} of each query that fills it: dist_work_whole.sql, the whole trace in one
-- statement where it is one process's (Kineto) and fits in one part; else
-- dist_work_first.sql, the first part of the ids, and dist_work_part.sql, each other part
-- (tui/analysis/distributed/window.py), so that each part's join with the launch calls
-- fits DuckDB's memory (all 15.7M of a 3 GB nsys export at once spilled: 36 s against 16 s
-- in parts of 1-2M, under the summary's 286 MiB).
-- The work: every kernel, copy and set with its class and launching call, in Holistic
-- Trace Analysis' window: with a cut (the last profiler step's start), only the
-- work whose launch call began before it (work whose call the trace lost goes too), as
-- HTA leaves the last step out; without, every activity.
-- Class, by HTA 0.5.0's kernel types (hta/utils/utils.py get_kernel_type): 'comm' names
-- start 'nccl' and go on to 'Kernel' (XLA traces: also kernels of a collective HLO op,
-- all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute, and their
-- -start/-done halves); 'memory' names start Memcpy, Memset or dma; 'other' names hold
-- Memcpy or Sync elsewhere; every other activity is 'compute'.
-- The launching call: links' (gpu_id, call: the part's dist_links, dist_links.sql or
-- dist_links_processes.sql, or dist_work_whole.sql's own join), fields and all (one join
-- of the GPU rows, not two: an nsys export's 13.6M ran out of memory); its name only where
-- HTA's launch calls are counted.
-- Which launches the launch statistics count (stat_launch) and the queue lengths follow
-- (queued): with hta_calls (Kineto traces), HTA's API names: cudaLaunchKernel,
-- cudaLaunchKernelExC, cudaMemcpyAsync and cudaMemsetAsync, and for the queue also
-- cuLaunchKernel (so not NCCL's cuLaunchKernelEx, nor cudaGraphLaunch); otherwise (nsys,
-- XLA: HTA reads neither) every activity whose launch call the trace links it to.
-- $cutoff_ns: dist_window.sql's cut (NULL: none); $hta_calls: whether HTA's calls count.
-- Columns: id, device, stream, start_ns, end_ns, kind, class, call_id (host_activities.id),
--          call_start_ns, call_end_ns (NULL: no launch call in the trace), call_pid,
--          call_tid, stat_launch, queued.
SELECT g.id, g.device, g.stream, g.start_ns, g.end_ns, g.kind,
       CASE
           WHEN regexp_matches(g.name, '^nccl.*Kernel') THEN 'comm'
           WHEN regexp_matches(coalesce(g.hlo_op, ''),
                '^(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)')
               THEN 'comm'
           WHEN regexp_matches(g.name, '^(Memcpy|Memset|dma)') THEN 'memory'
           WHEN contains(g.name, 'Memcpy') OR contains(g.name, 'Sync') THEN 'other'
           ELSE 'compute'
       END AS class,
       l.call.id AS call_id, l.call.start_ns AS call_start_ns, l.call.end_ns AS call_end_ns,
       l.call.pid AS call_pid, l.call.tid AS call_tid,
       CASE WHEN $hta_calls
            THEN coalesce(l.call.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC',
                                          'cudaMemcpyAsync', 'cudaMemsetAsync'), FALSE)
            ELSE l.call.id IS NOT NULL END AS stat_launch,
       CASE WHEN $hta_calls
            THEN coalesce(l.call.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC',
                                          'cuLaunchKernel', 'cudaMemcpyAsync',
                                          'cudaMemsetAsync'), FALSE)
            ELSE l.call.id IS NOT NULL END AS queued
FROM gpu_activities AS g
LEFT JOIN links AS l ON l.gpu_id = g.id
WHERE g.id >= $since AND g.id < $until
  AND ($cutoff_ns IS NULL OR l.call.start_ns < $cutoff_ns)

