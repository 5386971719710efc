-- Parse a Chrome-trace event array into a typed staging table, in the events' order.
-- $path: JSON files (a list), each one array of trace events, read in parallel and in
-- order (see tui/sources/chrome_json.py).
-- Every field is read as text and cast with TRY_CAST, so one odd event (a string
-- number, a missing ts) cannot fail the whole load; such events end up with NULLs
-- and are counted and dropped later. Timestamps are µs with up to ns decimals:
-- cast through DECIMAL to keep integer nanoseconds exact. Only complete ('X') events
-- are kept, and of `args` only the fields a loader reads, and only where it reads them
-- (GPU work and API calls): flow and instant events and CPU-op argument lists are most
-- of a trace's bytes. The reader picks those fields out while it parses, as json_transform
-- would, leniently: a field of another JSON type reads as its JSON text (VARCHAR) or NULL
-- (lists), and `args` that is no object as all-NULL fields.
CREATE OR REPLACE TEMP TABLE kineto_events AS
SELECT
    ph,
    cat,
    name,
    pid,
    tid,
    -- Appending 'e3' lets the integer cast scale µs to ns exactly, rounding as the DECIMAL
    -- casts do, in a third of their time; it is NULL for what it cannot take (exponent
    -- forms, overflow, odd text), which falls through to the DECIMAL casts. Hex text is
    -- kept away from it: '0x1' || 'e3' is a hex number. DECIMAL(18, 3) (an int64 inside)
    -- covers ts below 1e15 µs; epoch-µs timestamps need DECIMAL(28, 3); exponent forms
    -- that neither takes go through DOUBLE. NaN, Infinity and values beyond int64 ns
    -- become NULL (TRY_CAST), i.e. unusable.
    coalesce(
        CASE WHEN NOT contains(ts, 'x') AND NOT contains(ts, 'X')
             THEN TRY_CAST(ts || 'e3' AS BIGINT) END,
        CAST(CAST(TRY_CAST(ts AS DECIMAL(18, 3)) AS DECIMAL(22, 3)) * 1000 AS BIGINT),
        TRY_CAST(round(TRY_CAST(ts AS DECIMAL(28, 3)) * 1000) AS BIGINT),
        TRY_CAST(round(TRY_CAST(ts AS DOUBLE) * 1000) AS BIGINT)
    ) AS start_ns,
    coalesce(
        CASE WHEN NOT contains(dur, 'x') AND NOT contains(dur, 'X')
             THEN TRY_CAST(dur || 'e3' AS BIGINT) END,
        CAST(CAST(TRY_CAST(dur AS DECIMAL(18, 3)) AS DECIMAL(22, 3)) * 1000 AS BIGINT),
        TRY_CAST(round(TRY_CAST(dur AS DECIMAL(28, 3)) * 1000) AS BIGINT),
        TRY_CAST(round(TRY_CAST(dur AS DOUBLE) * 1000) AS BIGINT)
    ) AS duration_ns,
    -- A pattern, not `cat IN (...)`: DuckDB turns an IN list into a join, after which the
    -- parallel readers' rows may land out of file order (and that order gives ids).
    CASE WHEN regexp_full_match(cat, 'kernel|gpu_memcpy|gpu_memset|memcpy|memset|'
                                     || 'cuda_runtime|cuda_driver|runtime|driver')
         THEN args END AS args
FROM (
    SELECT ph, lower(cat) AS cat, name, pid, tid, ts, dur, args
    FROM read_json(
        $path,
        format = 'array',
        -- an element that is no object (a number, null, a list) reads as an all-NULL row,
        -- dropped by the ph filter below, instead of failing the whole file; malformed
        -- JSON still fails (DuckDB cannot skip parse errors in an array)
        ignore_errors = true,
        maximum_object_size = 268435456,
        columns = {
            ph: 'VARCHAR', cat: 'VARCHAR', name: 'VARCHAR', pid: 'VARCHAR', tid: 'VARCHAR',
            ts: 'VARCHAR', dur: 'VARCHAR',
            args: 'STRUCT(device VARCHAR, stream VARCHAR, correlation VARCHAR,
                          grid VARCHAR[], block VARCHAR[], "registers per thread" VARCHAR,
                          "shared memory" VARCHAR, bytes VARCHAR)'
        }
    )
    WHERE ph IN ('X', 'B', 'E')
);
