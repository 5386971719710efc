-- Params: $end_ns, $start_ns
-- Needs: schema
-- device_time_split.sql for a trace whose GPU activities' ids all fall in its first block
-- of 65,536 (diagnosis.SPLIT_BLOCK_IDS): the same rows. There the running max before each
-- activity is one window over each device's activities, without the blocks' maxima and
-- their join: 5.3 against 7.5 ms on a DDP rank, 14 against 22 ms over ddp4_nsys.sqlite's
-- four GPUs, most of the difference the plan's.
-- Columns: as device_time_split.sql's
WITH inside AS (
    SELECT * FROM gpu_activities
    WHERE device IS NOT NULL
      AND ($start_ns IS NULL OR end_ns > $start_ns)
      AND ($end_ns IS NULL OR start_ns < $end_ns)
), acts AS (
    -- clipping keeps the id order a start order (greatest/least skip a NULL bound)
    SELECT id, device, greatest(start_ns, $start_ns) AS start_ns,
           least(end_ns, $end_ns) AS end_ns,
           CASE WHEN kind = 'kernel' AND NOT contains(lower(name), 'nccl') THEN 1
                WHEN kind IN ('memcpy', 'memset') THEN 2
                ELSE 3 END AS what
    FROM inside
    WHERE start_ns IS NOT NULL AND end_ns > start_ns
), ends AS (
    SELECT *, CASE WHEN what = 1 THEN end_ns END AS end1,
              CASE WHEN what <= 2 THEN end_ns END AS end2
    FROM acts
), within AS (
    SELECT device, start_ns, end_ns, what,
           max(end1) OVER earlier AS end1, max(end2) OVER earlier AS end2,
           max(end_ns) OVER earlier AS end3
    FROM ends
    WINDOW earlier AS (PARTITION BY device ORDER BY id
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
), unions AS (
    -- greatest() skips NULLs: nothing of the kind has ended before
    SELECT device,
           sum(CASE WHEN what = 1 THEN greatest(0, end_ns - greatest(start_ns, end1))
                    ELSE 0 END) AS u1,
           sum(CASE WHEN what <= 2 THEN greatest(0, end_ns - greatest(start_ns, end2))
                    ELSE 0 END) AS u2,
           sum(greatest(0, end_ns - greatest(start_ns, end3))) AS u3
    FROM within
    GROUP BY device
), counts AS (
    SELECT device,
           count(*) FILTER (WHERE kind = 'kernel') AS kernels,
           median(duration_ns) FILTER (WHERE kind = 'kernel')::DOUBLE AS kernel_median_ns,
           count(*) FILTER (WHERE kind = 'kernel' AND contains(lower(name), 'nccl'))
               AS comm_kernels,
           coalesce(sum(duration_ns) FILTER (WHERE kind = 'kernel'
                                             AND contains(lower(name), 'nccl')), 0)::BIGINT
               AS comm_kernel_ns,
           count(*) FILTER (WHERE kind = 'memcpy') AS copies,
           coalesce(sum(bytes) FILTER (WHERE kind = 'memcpy'), 0)::BIGINT AS copy_bytes
    FROM inside
    GROUP BY device
)
SELECT c.device, coalesce(u.u1, 0)::BIGINT AS compute_ns,
       coalesce(u.u2 - u.u1, 0)::BIGINT AS copy_ns, coalesce(u.u3 - u.u2, 0)::BIGINT AS comm_ns,
       coalesce(u.u3, 0)::BIGINT AS all_ns, c.kernels, c.kernel_median_ns, c.comm_kernels,
       c.comm_kernel_ns, c.copies, c.copy_bytes
FROM counts AS c
LEFT JOIN unions AS u USING (device)
ORDER BY c.device;
