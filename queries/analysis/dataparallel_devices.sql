-- Params: $end_ns, $start_ns
-- Needs: schema
-- The devices that one process drives as torch.nn.DataParallel does, in [$start_ns,
-- $end_ns) (NULL: no bound): each step its `replicate` copies the weights from the first
-- GPU to the others by NCCL Broadcast kernels, and the backward of that copy sums the
-- gradients back onto the first GPU by NCCL Reduce kernels (torch.cuda.comm's
-- broadcast_coalesced and reduce_add_coalesced), all launched from the one process. A
-- process whose Broadcast kernels ran on two or more devices and which launched Reduce
-- kernels (not AllReduce, ReduceScatter) is one; a process per GPU (DDP, FSDP, under
-- torchrun) broadcasts on its own GPU alone.
-- Columns: pid, devices (the process's devices with such kernels), broadcasts,
--          broadcast_ns, reduces, reduce_ns (the kernels' time, summed over devices).
WITH nccl AS (
    SELECT g.device, g.duration_ns,
           regexp_matches(g.name, '^nccl(Dev)?Kernel_Broadcast') AS broadcast,
           regexp_matches(g.name, '^nccl(Dev)?Kernel_Reduce_') AS reduce, h.pid
    FROM gpu_activities AS g
    JOIN launches AS l ON l.gpu_id = g.id
    JOIN host_activities AS h ON h.id = l.runtime_id
    WHERE g.kind = 'kernel' AND g.device IS NOT NULL AND g.name LIKE 'nccl%'
      AND regexp_matches(g.name, '^nccl(Dev)?Kernel_(Broadcast|Reduce_)')
      AND ($start_ns IS NULL OR g.end_ns > $start_ns)
      AND ($end_ns IS NULL OR g.start_ns < $end_ns)
)
SELECT pid, list(DISTINCT device ORDER BY device) AS devices,
       count(*) FILTER (WHERE broadcast) AS broadcasts,
       coalesce(sum(duration_ns) FILTER (WHERE broadcast), 0) AS broadcast_ns,
       count(*) FILTER (WHERE reduce) AS reduces,
       coalesce(sum(duration_ns) FILTER (WHERE reduce), 0) AS reduce_ns
FROM nccl
GROUP BY pid
HAVING count(DISTINCT device) FILTER (WHERE broadcast) >= 2
   AND count(*) FILTER (WHERE reduce) > 0
ORDER BY pid;
