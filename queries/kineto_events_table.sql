-- The complete and begin/end events of a Kineto trace, parsed and typed, in the file's
-- order; filled by kineto_stage_events.sql, whose reader reads `args` as kineto_event_args
-- (the fields a loader reads). The Python frame ids and the `[memory]` events' figures are
-- read too; their "Bytes" is not: a struct's field names are case-insensitive, so it
-- cannot sit beside the copies' "bytes" (kineto_memory_events.sql derives it).
CREATE OR REPLACE TEMP TYPE kineto_event_args AS STRUCT(
    device VARCHAR, stream VARCHAR, correlation VARCHAR, grid VARCHAR[], block VARCHAR[],
    "registers per thread" VARCHAR, "shared memory" VARCHAR, bytes VARCHAR,
    "Python id" VARCHAR, "Python parent id" VARCHAR,
    "Total Allocated" VARCHAR, "Total Reserved" VARCHAR, "Device Type" VARCHAR,
    "Device Id" VARCHAR, "Addr" VARCHAR
);

CREATE OR REPLACE TEMP TABLE kineto_events (
    ph          VARCHAR,
    cat         VARCHAR,
    name        VARCHAR,
    pid         VARCHAR,
    tid         VARCHAR,
    start_ns    BIGINT,
    duration_ns BIGINT,
    args        kineto_event_args
);
