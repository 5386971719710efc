-- Params: none
-- Needs: none
-- The one staging relation of an XLA (JAX / TensorFlow) profile, whatever its form: the
-- trace viewer's JSON (xla_stage_json.sql) or the XSpace .xplane.pb decoded to the same
-- events (xla_stage_arrow.sql). xla_gpu_activities.sql and xla_host_activities.sql map it
-- into the schema. Times stay the files' µs (DOUBLE) until then; `args` keeps only the
-- fields the mapping reads, each as text (a number reads as its JSON text).
-- (again, after a refused split: the table goes first, as it is of the type)
DROP TABLE IF EXISTS xla_events;

CREATE OR REPLACE TEMP TYPE xla_event_args AS STRUCT(
    "name" VARCHAR,              -- M events: the process or thread name
    correlation_id VARCHAR,      -- ties GPU work to the host's driver/runtime call
    kernel_details VARCHAR,      -- 'regs:168 static_shared:0 dynamic_shared:231424 grid:128,1,1 block:384,1,1 occ_pct:18.75'
    memcpy_details VARCHAR,      -- 'kind_src:pinned kind_dst:device size:2097152 dest:0 async:1'
    "Memset_details" VARCHAR,    -- 'kind:unknown num_bytes:4 async:1'
    hlo_module VARCHAR, hlo_op VARCHAR, tf_op VARCHAR,
    step_num VARCHAR,            -- jax.profiler.StepTraceAnnotation
    _src VARCHAR                 -- the C++ source of an XLA/PJRT TraceMe
);

-- What each process of the profile is (filled by the loader from xla_processes.sql):
-- role 'gpu' (a '/device:GPU:<N>' process; device = N) or 'host' (a '/host:...' one).
CREATE OR REPLACE TEMP TABLE xla_pids (pid BIGINT, role VARCHAR, device INTEGER);

CREATE OR REPLACE TEMP TABLE xla_events (
    ph   VARCHAR,  -- 'X' complete events, 'M' process/thread names
    pid  BIGINT,
    tid  BIGINT,
    ts   DOUBLE,   -- µs
    dur  DOUBLE,   -- µs
    name VARCHAR,
    args xla_event_args
);

-- µs (DOUBLE) to integer ns as the Kineto loader scales them (kineto_stage_events.sql):
-- the whole µs and the fraction apart, each exact in a double; NULL where no int64 holds it.
CREATE OR REPLACE TEMP MACRO xla_ns(us) AS
    CASE WHEN abs(us) < 9007199254740992
         THEN CAST(floor(us) AS BIGINT) * 1000 + CAST(round((us - floor(us)) * 1000) AS BIGINT)
         ELSE TRY_CAST(round(us * 1000) AS BIGINT) END;
