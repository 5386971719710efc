-- Params: none
-- Needs: cte ends
-- device_time_unions_blocks.sql for a trace whose GPU activities' ids all fall in its first
-- block of 65,536 (diagnosis.SPLIT_BLOCK_IDS): the same rows. There the running max before
-- each activity is one window over each device's activities, without the blocks' maxima
-- and their join: device_time_split.sql took 5.3 against 7.5 ms so on a DDP rank, 14
-- against 22 ms over ddp4_nsys.sqlite's four GPUs, most of the difference the plan's.
-- Columns: device, u1, u2, u3
WITH within AS (
    SELECT device, start_ns, end_ns, what,
           max(end1) OVER earlier AS end1, max(end2) OVER earlier AS end2,
           max(end_ns) OVER earlier AS end3
    FROM ends
    WINDOW earlier AS (PARTITION BY device ORDER BY id
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
-- greatest() skips NULLs: nothing of the kind has ended before
SELECT device,
       sum(CASE WHEN what = 1 THEN greatest(0, end_ns - greatest(start_ns, end1))
                ELSE 0 END) AS u1,
       sum(CASE WHEN what <= 2 THEN greatest(0, end_ns - greatest(start_ns, end2))
                ELSE 0 END) AS u2,
       sum(greatest(0, end_ns - greatest(start_ns, end3))) AS u3
FROM within
GROUP BY device
