-- Params: $end_ns, $start_ns, {unions}
-- Needs: schema
-- Per device: how its busy time splits by what ran, each instant counted once, in the
-- order compute > copy > communication: compute_ns is the union of its kernels that are
-- not NCCL's; copy_ns the time copies or sets ran with no such kernel; comm_ns the time
-- only NCCL kernels ran. all_ns, the union of everything, equals device_busy's busy_ns.
-- Also the kernel count, their median duration, the NCCL kernels' count and summed time,
-- and the copies' count and bytes, and the bytes of those to or from pageable host memory
-- (which the driver stages through a pinned buffer of its own) and pinned host memory.
-- A union's length is the sum over activities in start order of the part of each past the
-- latest end before it, a running max: {unions} takes it, in blocks of 65,536 ids
-- (device_time_unions_blocks.sql) or, where every GPU id falls in the first block, in one
-- window a device (device_time_unions_one_block.sql: a plan with less to it).
-- Within a window ($start_ns, $end_ns; NULL: the whole trace) each activity counts clipped
-- to it, and the counts, median and bytes are those of the activities it overlaps.
-- Columns: device, compute_ns, copy_ns, comm_ns, all_ns, kernels, kernel_median_ns,
--          comm_kernels, comm_kernel_ns, copies, copy_bytes, pageable_bytes, pinned_bytes.
WITH inside AS (
    -- the columns read after, the name only as whether it is NCCL's: the rows are held
    -- (read twice), and a kernel's name can be hundreds of characters long; a compressed
    -- column's names are tested once per distinct name as it is read
    SELECT id, device, start_ns, end_ns, duration_ns, kind, bytes,
           contains(lower(name), 'nccl') AS nccl,
           'Pageable' IN (src_kind, dst_kind) AS pageable,
           'Pinned' IN (src_kind, dst_kind) AS pinned
    FROM gpu_activities
    WHERE device IS NOT NULL
      AND ($start_ns IS NULL OR end_ns > $start_ns)
      AND ($end_ns IS NULL OR start_ns < $end_ns)
), acts AS (
    -- clipping keeps the id order a start order (greatest/least skip a NULL bound)
    SELECT id, device, greatest(start_ns, $start_ns) AS start_ns,
           least(end_ns, $end_ns) AS end_ns, id // 65536 AS block,
           CASE WHEN kind = 'kernel' AND NOT nccl THEN 1
                WHEN kind IN ('memcpy', 'memset') THEN 2
                ELSE 3 END AS what
    FROM inside
    WHERE start_ns IS NOT NULL AND end_ns > start_ns
), ends AS (
    SELECT *, CASE WHEN what = 1 THEN end_ns END AS end1,
              CASE WHEN what <= 2 THEN end_ns END AS end2
    FROM acts
), unions AS (
    SELECT * FROM ({unions})
), counts AS (
    SELECT device,
           count(*) FILTER (WHERE kind = 'kernel') AS kernels,
           median(duration_ns) FILTER (WHERE kind = 'kernel')::DOUBLE AS kernel_median_ns,
           count(*) FILTER (WHERE kind = 'kernel' AND nccl) AS comm_kernels,
           coalesce(sum(duration_ns) FILTER (WHERE kind = 'kernel' AND nccl), 0)::BIGINT
               AS comm_kernel_ns,
           count(*) FILTER (WHERE kind = 'memcpy') AS copies,
           coalesce(sum(bytes) FILTER (WHERE kind = 'memcpy'), 0)::BIGINT AS copy_bytes,
           coalesce(sum(bytes) FILTER (WHERE kind = 'memcpy' AND pageable), 0)::BIGINT
               AS pageable_bytes,
           coalesce(sum(bytes) FILTER (WHERE kind = 'memcpy' AND pinned), 0)::BIGINT
               AS pinned_bytes
    FROM inside
    GROUP BY device
)
SELECT c.device, coalesce(u.u1, 0)::BIGINT AS compute_ns,
       coalesce(u.u2 - u.u1, 0)::BIGINT AS copy_ns, coalesce(u.u3 - u.u2, 0)::BIGINT AS comm_ns,
       coalesce(u.u3, 0)::BIGINT AS all_ns, c.kernels, c.kernel_median_ns, c.comm_kernels,
       c.comm_kernel_ns, c.copies, c.copy_bytes, c.pageable_bytes,
       c.pinned_bytes
FROM counts AS c
LEFT JOIN unions AS u USING (device)
ORDER BY c.device;
