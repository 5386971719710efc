-- Params: $format, $ignore_errors, $max_object_bytes, $path
-- Needs: table scratch.kineto_events
-- Parse Chrome-trace event arrays into kineto_events (kineto_events_table.sql), appended
-- in the events' order. $path: JSON files (a list), each one array of trace events, read
-- in parallel and in order (see tui/sources/chrome_json.py); a big trace's parts may come
-- in several calls, in order. $max_object_bytes: the largest event accepted.
-- $format and $ignore_errors: how the parts are written (kineto.py: ARRAYS, or LINES, each
-- part one event a line, for DuckDB's newline-delimited reader: see event_lines.py).
-- Fields are read as text (times as DOUBLE) and cast with TRY_CAST, so one odd event (a
-- string number, a missing ts) cannot fail the whole load; such events end up with NULLs
-- and are counted and dropped later. Only complete ('X') events, `[memory]` instants and
-- the few process and thread name 'M' events are kept, and of `args` only the fields a
-- loader reads, and only where it reads them (GPU work, API calls, Python frames, memory,
-- names, collectives, the ops whose FLOPs and GEMM shapes are read): flow and other instant
-- events and CPU-op argument lists are most of a trace's bytes. The reader hands `args` on
-- as its JSON text, and only the kept events' is cast to kineto_event_args, leniently: a
-- field of another JSON type reads as its JSON text (VARCHAR) or NULL (lists), and `args`
-- that is no object as all-NULL fields, as the reader itself would read them. The few
-- events read for more (memory instants, collectives, FLOP ops) also keep the text, in
-- args_more (kineto_events_table.sql). Read by the reader as the struct, every event's
-- `args` (2.9M on a 700 MB trace, most of them dropped) filled its fields: 0.2-0.4 CPU-s
-- more of a 2.7 CPU-s parse, the same rows (benchmarks/HISTORY.md, "A big trace's cold
-- open on 2 cores").
-- The reader's options are xla_stage_json.sql's; its columns differ (text and JSON here,
-- typed there), so the two calls stay apart.
INSERT INTO scratch.kineto_events
SELECT
    ph,
    cat,
    name,
    pid,
    tid,
    -- DuckDB's JSON reader parses every number into a double (a time read as text is that
    -- double printed back), so times are read as DOUBLE and scaled to ns here, the whole
    -- µs and the fraction apart (each exact in a double): a time written with three
    -- decimals comes out exact wherever a double holds its ns, below 2^43 µs (101 days of
    -- clock). NaN, Infinity, values beyond int64 ns and text that is no number become
    -- NULL, i.e. unusable.
    CASE WHEN abs(ts) < 9007199254740992
         THEN CAST(floor(ts) AS BIGINT) * 1000 + CAST(round((ts - floor(ts)) * 1000) AS BIGINT)
         ELSE TRY_CAST(round(ts * 1000) AS BIGINT) END AS start_ns,
    CASE WHEN abs(dur) < 9007199254740992
         THEN CAST(floor(dur) AS BIGINT) * 1000 + CAST(round((dur - floor(dur)) * 1000) AS BIGINT)
         ELSE TRY_CAST(round(dur * 1000) AS BIGINT) END AS duration_ns,
    -- Comparisons, not `cat IN (...)`: DuckDB turns an IN list into a join, after which
    -- the parallel readers' rows may land out of file order (and that order gives ids);
    -- nor a regexp, which costs more on every event.
    CASE WHEN cat = 'kernel' OR cat = 'gpu_memcpy' OR cat = 'gpu_memset' OR cat = 'memcpy'
           OR cat = 'memset' OR cat = 'cuda_runtime' OR cat = 'cuda_driver'
           OR cat = 'runtime' OR cat = 'driver' OR cat = 'python_function'
           OR more_args OR (ph = 'M' AND name IN ('process_name', 'thread_name'))
         THEN TRY_CAST(args AS kineto_event_args) END AS args,
    CASE WHEN more_args THEN args END AS args_more
FROM (
    -- the few events whose other fields a loader reads (kineto_events_table.sql): memory
    -- instants, collectives, and the ops whose FLOPs are counted (kineto_op_flops.sql; a
    -- function of a constant list, not IN: see above)
    SELECT *, cat = 'cpu_instant_event'
              OR (cat = 'cpu_op' AND (name = 'record_param_comms' OR list_contains([
                   'aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm',
                   'aten::_addmm_activation', 'aten::_scaled_mm', 'aten::_int_mm',
                   'aten::conv2d', 'aten::mul', 'aten::add',
                   'aten::_scaled_dot_product_flash_attention',
                   'aten::_scaled_dot_product_efficient_attention',
                   'aten::_scaled_dot_product_cudnn_attention',
                   'aten::_scaled_dot_product_flash_attention_backward',
                   'aten::_scaled_dot_product_efficient_attention_backward',
                   'aten::_scaled_dot_product_cudnn_attention_backward'], name)))
              AS more_args
    FROM (
        SELECT ph, lower(cat) AS cat, name, pid, tid, ts, dur, args
        FROM read_json(
            $path,
            format = $format,
            -- arrays: an element that is no object (a number, null, a list) reads as an
            -- all-NULL row, dropped by the ph filter below, instead of failing the whole
            -- file; malformed JSON still fails (DuckDB cannot skip parse errors in an array).
            -- Lines: errors fail the part (a line that is no whole event would lose its events)
            ignore_errors = $ignore_errors,
            -- the largest event: the reader sizes its buffers by it (see kineto.py)
            maximum_object_size = $max_object_bytes,
            columns = {
                ph: 'VARCHAR', cat: 'VARCHAR', name: 'VARCHAR', pid: 'VARCHAR', tid: 'VARCHAR',
                ts: 'DOUBLE', dur: 'DOUBLE',
                args: 'JSON'  -- cast above, for the kept events only
            }
        )
        WHERE ph IN ('X', 'B', 'E') OR (ph = 'i' AND name = '[memory]')
           OR (ph = 'M' AND name IN ('process_name', 'thread_name'))  -- lanes' names: a few rows
    )
);
