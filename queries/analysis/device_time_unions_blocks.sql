-- Params: none
-- Needs: cte ends
-- The unions of device_time_split.sql (its slot {unions}): over ends, its activities
-- (id, device, start_ns, end_ns, block = id // 65,536, what: 1 compute, 2 copy or set,
-- 3 the rest; end1, end2: end_ns where what is at most 1, 2), each device's union of
-- what 1, of what 1-2 and of all (u1, u2, u3). The running max before each activity is
-- taken in blocks of 65,536 ids (id order is (device, start_ns, end_ns) order): within a
-- block by a window, across blocks from each block's max, as gpu_idle_windows.sql does,
-- so that no window holds a whole device's activities (15M of them ran out of memory
-- under the 1GB budget).
-- Columns: device, u1, u2, u3
WITH block_last AS (
    SELECT device, block, max(end1) AS end1, max(end2) AS end2, max(end_ns) AS end3
    FROM ends
    GROUP BY device, block
), before_block AS (
    SELECT device, block,
           max(end1) OVER earlier AS end1, max(end2) OVER earlier AS end2,
           max(end3) OVER earlier AS end3
    FROM block_last
    WINDOW earlier AS (PARTITION BY device ORDER BY block
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
), within_block AS (
    SELECT device, block, start_ns, end_ns, what,
           max(end1) OVER earlier AS end1, max(end2) OVER earlier AS end2,
           max(end_ns) OVER earlier AS end3
    FROM ends
    WINDOW earlier AS (PARTITION BY device, block ORDER BY id
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
-- greatest() skips NULLs: nothing of the kind has ended before
SELECT w.device,
       sum(CASE WHEN what = 1 THEN greatest(0, end_ns - greatest(start_ns, w.end1, b.end1))
                ELSE 0 END) AS u1,
       sum(CASE WHEN what <= 2 THEN greatest(0, end_ns - greatest(start_ns, w.end2, b.end2))
                ELSE 0 END) AS u2,
       sum(greatest(0, end_ns - greatest(start_ns, w.end3, b.end3))) AS u3
FROM within_block AS w JOIN before_block AS b USING (device, block)
GROUP BY w.device
