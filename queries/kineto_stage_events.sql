-- Parse a Chrome-trace event array into a typed staging table.
-- $path: a JSON file holding one array of trace events (see tui/sources/chrome_json.py).
-- Every field is read as text and cast with TRY_CAST, so one odd event (a string
-- number, a missing ts) cannot fail the whole load; such events end up with NULLs
-- and are counted and dropped later. Timestamps are µs with up to ns decimals:
-- cast through DECIMAL to keep integer nanoseconds exact.
CREATE OR REPLACE TEMP TABLE kineto_events AS
WITH raw AS (
    SELECT *
    FROM read_json(
        $path,
        format = 'array',
        maximum_object_size = 268435456,
        columns = {
            ph: 'VARCHAR', cat: 'VARCHAR', name: 'VARCHAR', pid: 'VARCHAR', tid: 'VARCHAR',
            ts: 'VARCHAR', dur: 'VARCHAR', args: 'JSON'
        }
    )
)
SELECT
    ph,
    lower(cat) AS cat,
    name,
    pid,
    tid,
    coalesce(
        CAST(round(TRY_CAST(ts AS DECIMAL(28, 3)) * 1000) AS BIGINT),
        CAST(round(TRY_CAST(ts AS DOUBLE) * 1000) AS BIGINT)
    ) AS start_ns,
    coalesce(
        CAST(round(TRY_CAST(dur AS DECIMAL(28, 3)) * 1000) AS BIGINT),
        CAST(round(TRY_CAST(dur AS DOUBLE) * 1000) AS BIGINT)
    ) AS duration_ns,
    TRY_CAST(args ->> 'device' AS INTEGER) AS arg_device,
    TRY_CAST(args ->> 'stream' AS BIGINT) AS arg_stream,
    TRY_CAST(args ->> 'correlation' AS BIGINT) AS correlation,
    TRY_CAST(args -> 'grid' ->> 0 AS INTEGER) AS grid_x,
    TRY_CAST(args -> 'grid' ->> 1 AS INTEGER) AS grid_y,
    TRY_CAST(args -> 'grid' ->> 2 AS INTEGER) AS grid_z,
    TRY_CAST(args -> 'block' ->> 0 AS INTEGER) AS block_x,
    TRY_CAST(args -> 'block' ->> 1 AS INTEGER) AS block_y,
    TRY_CAST(args -> 'block' ->> 2 AS INTEGER) AS block_z,
    TRY_CAST(args ->> 'registers per thread' AS INTEGER) AS registers_per_thread,
    TRY_CAST(args ->> 'shared memory' AS BIGINT) AS shared_memory_bytes,
    TRY_CAST(args ->> 'bytes' AS BIGINT) AS bytes,
    CASE WHEN ph = 'M' THEN args ->> 'name' END AS meta_name
FROM raw;
