-- Params: none
-- Needs: temp table dist_work
-- Queue length per stream over time, as Holistic Trace Analysis 0.5.0's
-- get_queue_length_time_series (trace_counters.py) defines it, as the temp view
-- dist_queue_series, over dist_work (dist_work.sql): the work launched on a stream and not
-- yet started there. It goes up by one when a launch call that dist_work marks `queued`
-- begins (on a Kineto trace, HTA's: cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel,
-- cudaMemcpyAsync, cudaMemsetAsync), and down by one when the activity it launched starts
-- on the GPU; at one instant, ups first, then by activity: a change's length and its next
-- change come from one order (two windows each free to order the changes of one instant
-- paired a length with another's next change: an XLA trace's time-weighted mean varied
-- from run to run).
-- Columns: device, stream, t_ns (a change), queue (the length from then on), next_ns (the
--          next change on that stream; NULL at the last).
CREATE OR REPLACE TEMP VIEW dist_queue_series AS
WITH launched AS (
    SELECT id, device, stream, call_start_ns, start_ns
    FROM dist_work
    WHERE queued
), changes AS (
    SELECT id, device, stream, call_start_ns AS t_ns, 1 AS step, 0 AS tie FROM launched
    UNION ALL
    SELECT id, device, stream, start_ns AS t_ns, -1 AS step, 1 AS tie FROM launched
), series AS (  -- one window, so one sort (two took twice as long: 31M changes)
    SELECT device, stream, t_ns, sum(step) OVER by_time AS queue,
           lead(t_ns) OVER by_time AS next_ns
    FROM changes
    WINDOW by_time AS (PARTITION BY device, stream ORDER BY t_ns, tie, id
                       ROWS UNBOUNDED PRECEDING)
)
SELECT device, stream, t_ns, queue::INTEGER AS queue, next_ns
FROM series;
