-- The complete and begin/end events of a Kineto trace (and its process/thread names),
-- parsed and typed, in the file's order; filled by kineto_stage_events.sql, whose reader
-- reads `args` as kineto_event_args (the fields a loader reads).
DROP TABLE IF EXISTS kineto_events;  -- made again empty: its type cannot be replaced under it
CREATE OR REPLACE TEMP TYPE kineto_event_args AS STRUCT(
    device VARCHAR, stream VARCHAR, correlation VARCHAR, grid VARCHAR[], block VARCHAR[],
    "registers per thread" VARCHAR, "shared memory" VARCHAR, bytes VARCHAR,
    name VARCHAR  -- process_name / thread_name metadata events: the name
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
