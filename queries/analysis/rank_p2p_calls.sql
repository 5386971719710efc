-- Params: none
-- Needs: schema
-- The point-to-point calls of a combined run, for its pipeline (tui/analysis/pipeline.py):
-- c10d's send/recv (collectives, Kineto), or, where no rank recorded those (an nsys report),
-- NCCL's own NVTX ranges `ncclSend` and `ncclRecv` (NCCL's NVTX domain, which nsys records
-- with `-t nvtx`; their payloads, the peer among them, are not in the export). Each range
-- is tied to the first SendRecv kernel its thread launched from its start on (NCCL launches
-- at the group's end, one kernel for the calls of a group); its peer is the other rank
-- whose SendRecv kernel, overlapping that one, ended nearest it (the two ends of a
-- transfer finish together).
-- Columns: rank, call ('send' | 'recv'), peer, start_ns.
WITH recorded AS (
    SELECT rank, lower(collective) AS call, peer, start_ns
    FROM collectives
    WHERE lower(collective) IN ('send', 'recv') AND peer IS NOT NULL
      AND group_desc IS DISTINCT FROM 'NCCL'  -- c10d's, not NCCL's payloads (nsys)
), ranges AS (
    SELECT rank, tid, start_ns, CASE name WHEN 'ncclSend' THEN 'send' ELSE 'recv' END AS call
    FROM host_activities
    WHERE kind = 'annotation' AND name IN ('ncclSend', 'ncclRecv')
      AND NOT EXISTS (FROM recorded)
), kernels AS (
    SELECT g.rank, r.tid, r.start_ns AS call_ns, g.start_ns, g.end_ns
    FROM gpu_activities AS g
    JOIN host_activities AS r
        ON r.rank = g.rank AND r.kind = 'runtime' AND r.correlation = g.correlation
    WHERE g.kind = 'kernel' AND g.name ILIKE 'nccl%SendRecv%'
      AND NOT EXISTS (FROM recorded)
), tied AS (
    SELECT r.rank, r.call, r.start_ns, k.start_ns AS kernel_start_ns,
           k.end_ns AS kernel_end_ns
    FROM ranges AS r
    ASOF JOIN kernels AS k ON k.rank = r.rank AND k.tid = r.tid AND k.call_ns >= r.start_ns
), nearest AS (
    SELECT t.rank, t.call, t.start_ns,
           arg_min(k.rank, abs(k.end_ns - t.kernel_end_ns)) AS peer
    FROM tied AS t
    JOIN kernels AS k
        ON k.rank <> t.rank AND k.start_ns < t.kernel_end_ns
       AND k.end_ns > t.kernel_start_ns
    GROUP BY t.rank, t.call, t.start_ns
)
FROM recorded
UNION ALL
SELECT rank, call, peer, start_ns FROM nearest;
