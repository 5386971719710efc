-- Params: $from_kernels, $profiler_step, $step_name
-- Needs: schema
-- What kind of parallelism each process group of a combined run carries, from the calls
-- the ranks made in it (collectives, filled from Kineto's record_param_comms ops), or,
-- where no rank recorded c10d's calls (an nsys report, whose NCCL calls read from NCCL's
-- payloads, group_desc 'NCCL', tell neither the backward nor a send's peer:
-- $from_kernels, rank_c10d_calls.sql), from the NCCL kernels' names, as one group '?'
-- over every rank that ran one; the steps and main threads the kernels need are read
-- only then.
-- The kind, first that holds: 'context' (calls made inside an attention op, Kineto's
-- `aten::_scaled_dot_product_*attention*` or a ring attention's own: the keys and values
-- passed between the ranks, whether all-gathered, sent by all-to-all or round a ring;
-- from the kernels, those launched inside one, where an nsys report has PyTorch's ops as
-- NVTX ranges, `--pytorch=autograd-nvtx`),
-- 'ring' (XLA's collective-permutes and no other
-- point-to-point call), 'pipeline' (send/recv between ranks, the last of them in the
-- later half of the group's calls), 'expert' (all-to-alls in the forward),
-- 'tensor' (sequence parallelism: reduce-scatters called outside the backward, i.e. in
-- the forward, within a factor of two of those in the backward and at least half as
-- many as the forward's all-gathers: activations reduce-scattered inside the layers, as
-- PyTorch's RowwiseParallel(output_layouts=Shard(1)) and Megatron's sequence
-- parallelism do), 'fsdp' (all-gathers and reduce-scatters),
-- 'tensor' (all-reduces called outside the backward, at least half as many as in the
-- backward: activations reduced inside the layers; an all-reduce of fewer than 64
-- elements, a logged loss or metric, is not counted), 'data' (all-reduces in the
-- backward: gradients), else NULL.
-- From the kernels alone, an all-reduce is the forward's when its launch call is on the
-- thread of a step range (Kineto's ProfilerStep#N or an NVTX range named like a step,
-- $profiler_step, $step_name: tui/core/steps.py) and inside it, the backward's otherwise
-- (autograd runs the backward on threads of its own); on a rank with no step range (a
-- program that marks nothing), the forward's when launched by the thread that launched
-- the rank's first kernel (the program's main thread: autograd's start with the first
-- backward), the backward's otherwise. NCCL runs an all-to-all as SendRecv kernels, as it
-- does sends and receives: a kernel is an all-to-all's where NCCL's payloads (an nsys
-- export with them) tie an all-to-all to it (nsys_collectives.sql: ncclAlltoAll, or a
-- group of sends to every rank), a send's otherwise ('pipeline').
-- An XLA program's collectives (tui/derived: its HLO ops as calls) count alike: a
-- collective-permute as send/recv, an all-reduce in a transposed op ('transpose(jvp(…))',
-- the gradient's) as the backward's.
-- Columns: process_group, group_desc, ranks (the group's global ranks as declared, else
--          the ranks seen calling), kind, calls, attention_calls, p2p, all_to_all, forward_all_to_all,
--          permutes, all_gathers,
--          reduce_scatters, forward_reduce_scatters, forward_all_gathers,
--          forward_all_reduces,
--          backward_all_reduces, from_kernels, from_hlo (the calls are an XLA program's HLO collectives).
WITH attention AS (  -- the attention ops on each rank's threads (Kineto's CPU ops)
    SELECT rank, tid, start_ns, end_ns FROM host_activities
    WHERE kind = 'cpu_op' AND (name ILIKE '%attention%' OR name ILIKE '%attn%')
), recorded AS (  -- XLA's opcodes ('all-reduce', 'collective-permute') as c10d's
    SELECT c.rank, c.process_group, c.group_desc, c.group_ranks,
           replace(lower(c.collective), '-', '_') AS collective, c.backward, c.start_ns,
           c.in_nelems, false AS from_kernels, c.collective LIKE '%-%' AS from_hlo,
           EXISTS (SELECT 1 FROM attention AS a
                   WHERE a.rank = c.rank AND a.tid = c.tid AND a.start_ns <= c.start_ns
                     AND a.end_ns >= c.end_ns) AS in_attention
    FROM collectives AS c
    WHERE lower(c.collective) NOT IN ('barrier', 'wait')
      AND c.group_desc IS DISTINCT FROM 'NCCL'
), stepped AS (  -- the ranks with step ranges
    SELECT DISTINCT rank FROM host_activities
    WHERE $from_kernels AND kind = 'annotation'
      AND (regexp_matches(name, $profiler_step) OR regexp_matches(name, $step_name))
), main_thread AS (  -- each rank's first kernel's launching thread
    SELECT f.rank, r.pid, r.tid
    FROM (SELECT rank, arg_min(correlation, start_ns) AS correlation
          FROM gpu_activities
          WHERE $from_kernels AND kind = 'kernel' AND correlation IS NOT NULL
          GROUP BY rank) AS f
    JOIN host_activities AS r
        ON r.rank = f.rank AND r.kind = 'runtime' AND r.correlation = f.correlation
), kernels AS (  -- a kernel launched outside the steps' thread: the backward's (autograd's)
    SELECT g.rank, '?' AS process_group, NULL AS group_desc, NULL AS group_ranks,
           CASE WHEN n.correlation IS NOT NULL THEN 'all_to_all'  -- NCCL's payloads say so
                WHEN g.name ILIKE '%SendRecv%' OR g.name ILIKE '%nccl%Send%'
                     OR g.name ILIKE '%nccl%Recv%' THEN 'send'
                WHEN g.name ILIKE '%AllGather%' THEN 'allgather'
                WHEN g.name ILIKE '%ReduceScatter%' THEN 'reduce_scatter'
                WHEN g.name ILIKE '%AllReduce%' THEN 'allreduce'
                ELSE 'other' END AS collective,
           CASE WHEN g.rank IN (SELECT rank FROM stepped) THEN NOT EXISTS (
               SELECT 1 FROM host_activities AS s
               WHERE s.rank = g.rank AND s.kind = 'annotation' AND s.pid = r.pid
                 AND s.tid = r.tid AND s.start_ns <= r.start_ns AND s.end_ns >= r.start_ns
                 AND (regexp_matches(s.name, $profiler_step)
                      OR regexp_matches(s.name, $step_name)))
           ELSE NOT EXISTS (
               SELECT 1 FROM main_thread AS m
               WHERE m.rank = g.rank AND m.pid = r.pid AND m.tid = r.tid) END AS backward,
           g.start_ns, z.in_nelems, true AS from_kernels, false AS from_hlo,
           -- launched inside an attention op (nsys --pytorch=autograd-nvtx ranges of ops)
           EXISTS (SELECT 1 FROM attention AS a
                   WHERE a.rank = g.rank AND a.tid = r.tid AND a.start_ns <= r.start_ns
                     AND a.end_ns >= r.start_ns) AS in_attention
    FROM gpu_activities AS g
    LEFT JOIN host_activities AS r
        ON r.rank = g.rank AND r.kind = 'runtime' AND r.correlation = g.correlation
    LEFT JOIN (SELECT DISTINCT rank, correlation FROM collectives
               WHERE $from_kernels AND group_desc = 'NCCL'
                 AND (collective LIKE '%all_to_all%' OR collective LIKE '%alltoall%')) AS n
        ON n.rank = g.rank AND n.correlation = g.correlation
    LEFT JOIN (SELECT rank, correlation, max(in_nelems) AS in_nelems FROM collectives
               WHERE $from_kernels AND group_desc = 'NCCL' AND correlation IS NOT NULL
               GROUP BY rank, correlation) AS z  -- the call's size, where NCCL's payloads say
        ON z.rank = g.rank AND z.correlation = g.correlation
    WHERE g.kind = 'kernel' AND g.name ILIKE '%nccl%'
      AND $from_kernels
), calls AS (
    FROM recorded UNION ALL FROM kernels
), groups AS (
    SELECT process_group,
           any_value(group_desc) AS group_desc,
           max(group_ranks) FILTER (WHERE group_ranks <> '[]') AS declared,
           list(DISTINCT rank ORDER BY rank) AS seen,
           count(*) AS calls,
           count(*) FILTER (WHERE in_attention) AS attention_calls,
           count(*) FILTER (WHERE collective IN ('send', 'recv', 'isend', 'irecv',
                                                 'collective_permute')) AS p2p,
           -- when the group's calls went on, and until when its point-to-point ones did
           min(start_ns) AS first_ns,
           max(start_ns) AS last_ns,
           max(start_ns) FILTER (WHERE collective IN ('send', 'recv', 'isend', 'irecv',
                                                      'collective_permute')) AS p2p_last_ns,
           count(*) FILTER (WHERE collective LIKE '%all_to_all%'
                              OR collective LIKE '%alltoall%') AS all_to_all,
           count(*) FILTER (WHERE (collective LIKE '%all_to_all%'
                                   OR collective LIKE '%alltoall%') AND NOT backward)
               AS forward_all_to_all,
           count(*) FILTER (WHERE collective = 'collective_permute') AS permutes,
           count(*) FILTER (WHERE collective LIKE '%allgather%'
                              OR collective LIKE '%all_gather%') AS all_gathers,
           count(*) FILTER (WHERE collective LIKE '%reduce_scatter%') AS reduce_scatters,
           count(*) FILTER (WHERE collective LIKE '%reduce_scatter%' AND NOT backward)
               AS forward_reduce_scatters,
           count(*) FILTER (WHERE (collective LIKE '%allgather%'
                                   OR collective LIKE '%all_gather%') AND NOT backward)
               AS forward_all_gathers,
           -- a metric's all-reduce (a logged loss: under 64 elements) is no
           -- layer's activations
           count(*) FILTER (WHERE (collective LIKE '%allreduce%'
                                   OR collective LIKE '%all_reduce%') AND NOT backward
                              AND coalesce(in_nelems, 1 << 30) >= 64)
               AS forward_all_reduces,
           count(*) FILTER (WHERE (collective LIKE '%allreduce%'
                                   OR collective LIKE '%all_reduce%') AND backward)
               AS backward_all_reduces,
           bool_or(from_kernels) AS from_kernels, bool_or(from_hlo) AS from_hlo
    FROM calls
    GROUP BY process_group
)
SELECT process_group, group_desc,
       coalesce(TRY_CAST(declared AS INTEGER[]), seen) AS ranks,
       -- XLA's collective-permutes alone: blocks passed round the devices, whether a ring's
       -- (collective matmul, ring attention) or a pipeline's stages', which the HLO does
       -- not tell apart
       CASE WHEN attention_calls > 0 THEN 'context'
            WHEN permutes > 0 AND permutes = p2p THEN 'ring'
            -- a pipeline sends until its last steps; sends that stop in the first half of
            -- the calls (the start-up's: DTensor scatters each weight's shards from rank
            -- 0) are no pipeline, however long a set-up came before its steps
            WHEN p2p > 0 AND (last_ns IS NULL OR 2 * p2p_last_ns >= first_ns + last_ns)
                THEN 'pipeline'
            -- tokens dispatched to the experts in the forward; XLA reshards a gradient by
            -- all-to-all in the backward alone
            WHEN forward_all_to_all > 0 THEN 'expert'
            -- sequence parallelism: the activations reduce-scattered in the forward, about
            -- as many as their gradients in the backward, and at least half as many as the
            -- forward's all-gathers (each layer gathers its input, scatters its output).
            -- FSDP reduce-scatters gradients: in the backward, or, for the root unit, in
            -- the backward's final callback (outside autograd's ops: read as the
            -- forward's): one a step beside a forward all-gather a unit
            WHEN forward_reduce_scatters > 0
                 AND reduce_scatters > forward_reduce_scatters
                 AND 2 * forward_reduce_scatters >= reduce_scatters - forward_reduce_scatters
                 AND 2 * (reduce_scatters - forward_reduce_scatters) >= forward_reduce_scatters
                 AND 2 * forward_reduce_scatters >= forward_all_gathers
                THEN 'tensor'
            WHEN all_gathers > 0 AND reduce_scatters > 0 THEN 'fsdp'
            WHEN forward_all_reduces > 0 AND 2 * forward_all_reduces >= backward_all_reduces
                THEN 'tensor'
            WHEN backward_all_reduces > 0 THEN 'data'
       END AS kind,
       calls, attention_calls, p2p, all_to_all, forward_all_to_all, permutes, all_gathers, reduce_scatters, forward_reduce_scatters,
       forward_all_reduces, backward_all_reduces, from_kernels, from_hlo
FROM groups
ORDER BY process_group;
