-- Params: none
-- Needs: none
-- The complete and begin/end events of a Kineto trace (and its process/thread names),
-- parsed and typed, in the file's order; filled by kineto_stage_events.sql, which casts
-- the kept events' `args` to kineto_event_args (the fields a loader reads) and keeps those
-- of the few events read for more (memory instants, collectives, FLOP ops) as their JSON
-- text too, in args_more; kineto_events_more reads them as kineto_event_more_args. The
-- `[memory]` events' "Bytes" is not read (kineto_memory_events.sql derives it).
-- The table lives in the load's scratch database (tui/loading/trace.py): in memory for a small
-- trace, else a file whose blocks are written compressed as they fill; either way a
-- second connection can read it.
DROP TABLE IF EXISTS scratch.kineto_events;  -- made again empty: its type cannot be replaced under it
CREATE OR REPLACE TEMP TYPE kineto_event_args AS STRUCT(
    device VARCHAR, stream VARCHAR, correlation VARCHAR, grid VARCHAR[], block VARCHAR[],
    "registers per thread" VARCHAR, "shared memory" VARCHAR, bytes VARCHAR,
    "Python id" VARCHAR, "Python parent id" VARCHAR,
    name VARCHAR  -- process_name / thread_name metadata events: the name
);
-- The fields of the few events args_more holds (kineto_stage_events.sql), cast where they
-- are read (kineto_memory_*.sql, kineto_collectives.sql, kineto_op_flops.sql,
-- kineto_gemm_shapes.sql, kineto_event_counts.sql). In `args` they would take a slot of
-- every event's struct: the parsed events of a 700 MB trace held 698 MB with them there,
-- 541 MB without, and the parse cost 0.3 CPU-s more.
CREATE OR REPLACE TEMP TYPE kineto_event_more_args AS STRUCT(
    "Total Allocated" VARCHAR, "Total Reserved" VARCHAR, "Device Type" VARCHAR,
    "Device Id" VARCHAR, "Addr" VARCHAR,
    -- record_param_comms (c10d's collectives)
    "Collective name" VARCHAR, "Process Group Name" VARCHAR,
    "Process Group Description" VARCHAR, "Process Group Ranks" VARCHAR,
    "Group size" VARCHAR, "Dst Rank" VARCHAR, "Src Rank" VARCHAR,
    "In msg nelems" VARCHAR, "Out msg nelems" VARCHAR, dtype VARCHAR,
    -- the ops that do floating-point work (kineto_op_flops.sql, kineto_gemm_shapes.sql):
    -- the FLOPs the profiler wrote (older PyTorch, with_flops) and the inputs' shapes and
    -- types (record_shapes), each list as its JSON text
    flops VARCHAR, "Input Dims" VARCHAR, "Input type" VARCHAR
);

CREATE OR REPLACE TABLE scratch.kineto_events (
    ph          VARCHAR,
    cat         VARCHAR,
    name        VARCHAR,
    pid         VARCHAR,
    tid         VARCHAR,
    start_ns    BIGINT,
    duration_ns BIGINT,
    args        kineto_event_args,
    args_more   JSON  -- memory instants, collectives, FLOP ops: kineto_event_more_args
);

-- The events with `args` as kineto_event_more_args (NULL but for the few events
-- args_more holds), for the queries that read those fields, and their row ids (the
-- file's order) as `event_row`. A temp view: those run on the loading connection, whose
-- type it is.
CREATE OR REPLACE TEMP VIEW kineto_events_more AS
SELECT * REPLACE (TRY_CAST(args_more AS kineto_event_more_args) AS args), rowid AS event_row
FROM scratch.kineto_events;
