-- Params: none
-- Needs: arrow nsys_nccl_calls
-- NCCL's calls read from an nsys export's NVTX payloads (registered as nsys_nccl_calls,
-- from nsys_sqlite_nccl_calls.sql) into collectives, as Kineto's record_param_comms
-- events fill it: each collective call with its thread, its communicator (process_group:
-- NCCL's communicator ID), its group's size (the ranks its communicator was initialised
-- with, on any rank: the ID is the same on each) and the bytes in and out of this rank,
-- as NCCL's own payload gives them (`Message size [bytes]`: the whole buffer of an
-- all-reduce, a broadcast or a reduce; one rank's share of an all-gather's output and of
-- a reduce-scatter's input; what goes to each peer in an all-to-all; a send's or a
-- receive's, with its peer in the communicator), and the launch of its NCCL kernel: the
-- first launch call of an NCCL kernel its thread made from the call's start on (inside
-- it, or, for calls grouped by ncclGroupStart/End, as batch_isend_irecv groups a
-- pipeline's sends and receives, at the group's end: the calls of a group share one
-- kernel). A group whose sends reach every rank of its communicator, its own included,
-- is an all-to-all: PyTorch runs all_to_all_single with split sizes (an expert-parallel
-- layer's dispatch and combine) as one group of a send and a receive per rank, and the
-- group is one row, 'all_to_allv' as c10d names it, its bytes in the rank's sends, out
-- its receives. group_desc 'NCCL' tells these rows from c10d's: the kind of parallelism
-- and a pipeline's peers are read from c10d's calls and the NCCL kernels
-- (rank_parallelism.sql, rank_p2p_calls.sql).
-- Columns: those of collectives.
INSERT INTO collectives
WITH calls AS (
    SELECT (global_tid >> 24) & 16777215 AS pid, global_tid & 16777215 AS tid, start_ns,
           end_ns, name,
           json_extract_string(payload, '$."NCCL communicator ID"') AS communicator,
           TRY_CAST(json_extract_string(payload, '$."Message size [bytes]"') AS BIGINT)
               AS bytes,
           TRY_CAST(json_extract_string(payload, '$."No. of ranks"') AS INTEGER) AS ranks,
           TRY_CAST(json_extract_string(payload, '$."Peer rank"') AS INTEGER) AS peer
    FROM nsys_nccl_calls
), groups AS (
    SELECT communicator, max(ranks) AS group_size
    FROM calls
    WHERE ranks IS NOT NULL
    GROUP BY communicator
), collective_calls AS (
    SELECT c.*, g.group_size,
           CASE c.name WHEN 'ncclAllReduce' THEN 'allreduce'
                       WHEN 'ncclAllGather' THEN 'allgather'
                       WHEN 'ncclReduceScatter' THEN 'reduce_scatter'
                       WHEN 'ncclAlltoAll' THEN 'alltoall'
                       WHEN 'ncclBroadcast' THEN 'broadcast'
                       WHEN 'ncclReduce' THEN 'reduce'
                       WHEN 'ncclSend' THEN 'send'
                       WHEN 'ncclRecv' THEN 'recv' END AS collective
    FROM calls AS c
    LEFT JOIN groups AS g USING (communicator)
    WHERE c.bytes IS NOT NULL
), nccl_launches AS (
    -- the launch calls of NCCL kernels (a few a step), with their thread
    SELECT h.pid, h.tid, h.start_ns, h.correlation
    FROM host_activities AS h
    JOIN gpu_activities AS g ON g.correlation = h.correlation
    WHERE h.kind = 'runtime' AND g.kind = 'kernel' AND g.name LIKE 'nccl%'
), launched AS (
    SELECT c.pid, c.tid, c.start_ns, l.correlation
    FROM collective_calls AS c
    ASOF JOIN nccl_launches AS l
      ON l.pid = c.pid AND l.tid = c.tid AND l.start_ns >= c.start_ns
), tied AS (
    SELECT c.*, l.correlation
    FROM collective_calls AS c
    LEFT JOIN launched AS l USING (pid, tid, start_ns)
    WHERE c.collective IS NOT NULL
), exchanges AS (
    -- the groups (one kernel) whose sends reach every rank of the communicator
    SELECT pid, tid, correlation, communicator
    FROM tied
    WHERE collective = 'send' AND correlation IS NOT NULL
    GROUP BY pid, tid, correlation, communicator
    HAVING max(group_size) > 1 AND count(DISTINCT peer) = max(group_size)
)
SELECT c.tid, c.start_ns, c.end_ns, c.collective, c.communicator AS process_group,
       'NCCL' AS group_desc, NULL AS group_ranks, c.group_size, c.peer,
       c.bytes * CASE WHEN c.collective IN ('reduce_scatter', 'alltoall')
                      THEN coalesce(c.group_size, 1) ELSE 1 END AS in_nelems,
       c.bytes * CASE WHEN c.collective IN ('allgather', 'alltoall')
                      THEN coalesce(c.group_size, 1) ELSE 1 END AS out_nelems,
       'Byte' AS dtype, NULL AS backward, c.correlation
FROM tied AS c
ANTI JOIN exchanges AS x USING (pid, tid, correlation, communicator)
UNION ALL
SELECT any_value(c.tid), min(c.start_ns), max(c.end_ns), 'all_to_allv',
       c.communicator, 'NCCL', NULL, max(c.group_size), NULL,
       sum(c.bytes) FILTER (WHERE c.collective = 'send'),
       coalesce(sum(c.bytes) FILTER (WHERE c.collective = 'recv'), 0), 'Byte', NULL,
       c.correlation
FROM tied AS c
SEMI JOIN exchanges AS x USING (pid, tid, correlation, communicator)
GROUP BY c.pid, c.tid, c.correlation, c.communicator;
