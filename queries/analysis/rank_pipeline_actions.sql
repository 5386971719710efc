-- Params: none
-- Needs: schema
-- The stages each rank runs and the micro-batches of each, from the actions PyTorch's
-- multi-stage pipeline schedules mark (torch.distributed.pipelining's
-- PipelineScheduleMulti, ScheduleInterleaved1F1B among them: a record_function
-- `PP:<stage>F<micro-batch>` around each forward, Kineto's user annotations); none for a
-- single-stage schedule, which marks none.
-- Columns: rank, stages (the distinct stage ids it ran forwards of), micro_batches (the
--          distinct micro-batch ids of its forwards); by rank.
WITH forwards AS (
    SELECT rank,
           TRY_CAST(regexp_extract(name, '^PP:([0-9]+)F([0-9]+)$', 1) AS INTEGER) AS stage,
           TRY_CAST(regexp_extract(name, '^PP:([0-9]+)F([0-9]+)$', 2) AS INTEGER) AS micro
    FROM host_activities
    WHERE kind = 'annotation' AND starts_with(name, 'PP:')
      AND regexp_matches(name, '^PP:[0-9]+F[0-9]+$')
)
SELECT rank, count(DISTINCT stage) AS stages, count(DISTINCT micro) AS micro_batches
FROM forwards
GROUP BY rank
ORDER BY rank;
