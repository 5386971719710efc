-- The complete and begin/end events of a Kineto trace, parsed and typed, in the file's
-- order; filled by kineto_stage_events.sql, whose reader reads `args` as kineto_event_args
-- (the fields a loader reads).
-- (again, after a refused split: the table goes first, as it is of the type)
DROP TABLE IF EXISTS kineto_events;

CREATE OR REPLACE TEMP TYPE kineto_event_args AS STRUCT(
    device VARCHAR, stream VARCHAR, correlation VARCHAR, grid VARCHAR[], block VARCHAR[],
    "registers per thread" VARCHAR, "shared memory" VARCHAR, bytes VARCHAR
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
