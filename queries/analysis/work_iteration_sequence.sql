-- Params: $stream_nth
-- Needs: cte busiest
-- The start of work_iteration.sql and work_iteration_strided.sql, in their slot
-- {sequence}: the kernel sequence the iteration is searched in, that of the stream with
-- the most kernels (or, $stream_nth from 0, the one after that many busier: where the
-- busiest ran a start-up's kernels alone, as torch.compile's reduce-overhead mode records
-- its CUDA graphs on a stream of their own), numbered in start order.
-- Columns: i (from 0), name, start_ns, end_ns.
busiest AS (
    -- the stream with the most kernels: its order is the order the program issued them
    -- in, where kernels of several streams interleave as their timing falls (a DDP
    -- step's all-reduces among its backward's kernels)
    SELECT device, stream FROM gpu_activities
    WHERE kind = 'kernel' AND device IS NOT NULL
    GROUP BY device, stream ORDER BY count(*) DESC, device, stream
    LIMIT 1 OFFSET $stream_nth
), seq AS (
    -- its kernel sequence, numbered in start order
    SELECT row_number() OVER (ORDER BY g.start_ns, g.id) - 1 AS i, g.name, g.start_ns,
           g.end_ns
    FROM gpu_activities AS g
    JOIN busiest AS b ON g.device = b.device AND g.stream IS NOT DISTINCT FROM b.stream
    WHERE g.kind = 'kernel'
)
