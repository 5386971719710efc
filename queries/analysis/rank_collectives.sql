-- Params: none
-- Needs: schema
-- Every NCCL kernel of a combined run, matched to its collective instance across ranks,
-- with the time it spent waiting for the other ranks.
--
-- Matching: NCCL issues the collectives of a communicator in the same order on every rank,
-- so the k-th kernel of one name on one rank is the k-th on the others, up to an offset
-- where a rank's profiling window began earlier or later. The offset per (rank, name) is
-- found from time: the kernels of one instance end together (once the last rank has
-- arrived), so each kernel is paired with the kernel of the same name on the reference
-- rank (the lowest rank that ran that name) whose end is nearest to its own, and the
-- offset is the most common difference of their sequence numbers: a few ambiguous pairs
-- (back-to-back collectives, GPU clocks some µs apart) cannot move it. This assumes the
-- ranks' clocks agree to better than half the time between two collectives' ends (one
-- host: the same clock; several hosts: synchronised by NTP/PTP).
--
-- Wait: a kernel's duration minus the shortest duration among the instance's kernels.
-- The shortest kernel is the last rank to arrive: the one the others waited for
-- (`waited_for`). Instances seen on one rank only (outside the others' windows) get no
-- wait (`ranks` = 1).
-- Columns: rank, device, name, instance (numbered from 1 per name, shared by the kernels of
--          one collective), start_ns, end_ns, duration_ns, correlation, ranks, wait_ns,
--          waited_for.
WITH nccl AS (
    SELECT rank, device, name, start_ns, end_ns, duration_ns, correlation,
           row_number() OVER (PARTITION BY rank, name ORDER BY start_ns, end_ns) AS seq
    FROM gpu_activities
    WHERE kind = 'kernel' AND name ILIKE '%nccl%'
), reference AS (
    SELECT name, end_ns, seq FROM nccl
    QUALIFY rank = min(rank) OVER (PARTITION BY name)
), ended_before AS (  -- the reference kernel ending last at or before each kernel's end
    SELECT n.rank, n.name, n.seq, n.end_ns - r.end_ns AS distance, r.seq AS ref_seq
    FROM nccl AS n
    ASOF JOIN reference AS r ON n.name = r.name AND n.end_ns >= r.end_ns
), ended_after AS (  -- ... and the one ending first at or after it
    SELECT n.rank, n.name, n.seq, r.end_ns - n.end_ns AS distance, r.seq AS ref_seq
    FROM nccl AS n
    ASOF JOIN reference AS r ON n.name = r.name AND n.end_ns <= r.end_ns
), nearest AS (
    SELECT rank, name, seq, arg_min(ref_seq, distance) AS ref_seq
    FROM (FROM ended_before UNION ALL FROM ended_after)
    GROUP BY rank, name, seq
), offsets AS (
    SELECT rank, name, mode(ref_seq - seq ORDER BY ref_seq - seq) AS offset
    FROM nearest
    GROUP BY rank, name
), instances AS (
    SELECT n.*, n.seq + o.offset - min(n.seq + o.offset) OVER (PARTITION BY n.name) + 1
               AS instance
    FROM nccl AS n
    JOIN offsets AS o USING (rank, name)
)
SELECT
    rank, device, name, instance, start_ns, end_ns, duration_ns, correlation,
    count(*) OVER w AS ranks,
    CASE WHEN count(*) OVER w > 1 THEN duration_ns - min(duration_ns) OVER w ELSE 0 END
        AS wait_ns,
    -- equal durations (copies of one rank): the lowest rank, the same every run
    arg_min(rank, [duration_ns, rank]) OVER w AS waited_for
FROM instances
WINDOW w AS (PARTITION BY name, instance)
ORDER BY rank, start_ns;
