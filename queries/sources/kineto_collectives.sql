-- Params: none
-- Needs: temp table kineto_events_more, temp macro kineto_int_id, table scratch.kineto_events
-- c10d's collectives and point-to-point calls (record_param_comms CPU ops; their `wait`s
-- left out) into collectives, each with the NCCL kernel it launched: the first NCCL
-- kernel launched on the same thread from the op's start on (a collective launches inside
-- its op; NCCL launches point-to-point transfers as their group ends, just after, and
-- several of them, e.g. a send and a recv, may share one kernel), and whether autograd's
-- backward called it (inside an evaluate_function op).
INSERT INTO collectives
WITH calls AS (
    SELECT kineto_int_id(tid) AS tid, start_ns, start_ns + duration_ns AS end_ns,
           args."Collective name" AS collective,
           args."Process Group Name" AS process_group,
           args."Process Group Description" AS group_desc,
           args."Process Group Ranks" AS group_ranks,
           TRY_CAST(args."Group size" AS INTEGER) AS group_size,
           coalesce(TRY_CAST(args."Dst Rank" AS INTEGER),
                    TRY_CAST(args."Src Rank" AS INTEGER)) AS peer,
           TRY_CAST(args."In msg nelems" AS BIGINT) AS in_nelems,
           TRY_CAST(args."Out msg nelems" AS BIGINT) AS out_nelems,
           args.dtype AS dtype
    FROM kineto_events_more
    WHERE ph = 'X' AND cat = 'cpu_op' AND name = 'record_param_comms'
      AND args."Collective name" IS NOT NULL AND args."Collective name" <> 'wait'
      AND start_ns IS NOT NULL AND duration_ns >= 0
), backward AS (
    SELECT kineto_int_id(tid) AS tid, start_ns, start_ns + duration_ns AS end_ns
    FROM scratch.kineto_events
    WHERE ph = 'X' AND cat = 'cpu_op'
      AND starts_with(name, 'autograd::engine::evaluate_function')
      AND start_ns IS NOT NULL AND duration_ns >= 0
), nccl AS (
    SELECT TRY_CAST(args.correlation AS BIGINT) AS correlation
    FROM scratch.kineto_events
    WHERE ph = 'X' AND cat = 'kernel' AND name ILIKE '%nccl%'
), launches AS (
    SELECT kineto_int_id(e.tid) AS tid, e.start_ns, TRY_CAST(e.args.correlation AS BIGINT)
               AS correlation
    FROM scratch.kineto_events AS e
    WHERE e.ph = 'X' AND (e.cat = 'cuda_runtime' OR e.cat = 'cuda_driver'
                          OR e.cat = 'runtime' OR e.cat = 'driver')
      AND TRY_CAST(e.args.correlation AS BIGINT) IN (SELECT correlation FROM nccl)
)
SELECT c.tid, c.start_ns, c.end_ns, c.collective, c.process_group, c.group_desc,
       c.group_ranks, c.group_size, c.peer, c.in_nelems, c.out_nelems, c.dtype,
       EXISTS (SELECT 1 FROM backward AS b
               WHERE b.tid = c.tid AND b.start_ns <= c.start_ns AND b.end_ns >= c.end_ns)
           AS backward,
       l.correlation
FROM calls AS c
ASOF LEFT JOIN launches AS l ON l.tid = c.tid AND l.start_ns >= c.start_ns
ORDER BY c.start_ns;
