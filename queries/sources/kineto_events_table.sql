-- Params: none
-- Needs: none
-- The complete and begin/end events of a Kineto trace (and its process/thread names),
-- parsed and typed, in the file's order; filled by kineto_stage_events.sql, which casts
-- the kept events' `args` to kineto_event_args (the fields a loader reads). The Python
-- frame ids and the `[memory]` events' figures are read too; their "Bytes" is not: a
-- struct's field names are case-insensitive, so it cannot sit beside the copies' "bytes"
-- (kineto_memory_events.sql derives it).
-- The table lives in the load's scratch database (tui/loading/trace.py): in memory for a small
-- trace, else a file whose blocks are written compressed as they fill; either way a
-- second connection can read it.
DROP TABLE IF EXISTS scratch.kineto_events;  -- made again empty: its type cannot be replaced under it
CREATE OR REPLACE TEMP TYPE kineto_event_args AS STRUCT(
    device VARCHAR, stream VARCHAR, correlation VARCHAR, grid VARCHAR[], block VARCHAR[],
    "registers per thread" VARCHAR, "shared memory" VARCHAR, bytes VARCHAR,
    "Python id" VARCHAR, "Python parent id" VARCHAR,
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
    flops VARCHAR, "Input Dims" VARCHAR, "Input type" VARCHAR,
    name VARCHAR  -- process_name / thread_name metadata events: the name
);

CREATE OR REPLACE TABLE scratch.kineto_events (
    ph          VARCHAR,
    cat         VARCHAR,
    name        VARCHAR,
    pid         VARCHAR,
    tid         VARCHAR,
    start_ns    BIGINT,
    duration_ns BIGINT,
    args        kineto_event_args
);
