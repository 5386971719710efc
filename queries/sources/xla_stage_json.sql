-- Params: $format, $ignore_errors, $max_object_bytes, $path
-- Needs: temp table xla_events
-- Parse trace-viewer JSON event arrays (cut out of the file by tui/sources/chrome_json.py)
-- into xla_events (xla_events_table.sql), appended in the events' order.
-- $path: JSON files (a list), each one array of events, read in parallel and in order;
-- $max_object_bytes: the largest event accepted. $format and $ignore_errors: how the parts
-- are written (tui/sources/kineto.py: ARRAYS, or LINES, one event a line).
-- Only complete events and the process/thread names are kept. An element that is no
-- object, or a field of an odd type, reads as NULLs instead of failing the load.
-- The reader's options are kineto_stage_events.sql's; its columns differ (typed here, text
-- and JSON there), so the two calls stay apart.
INSERT INTO xla_events
SELECT ph, pid, tid, ts, dur, name, args
FROM read_json(
    $path,
    format = $format,
    ignore_errors = $ignore_errors,
    maximum_object_size = $max_object_bytes,
    columns = {
        ph: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'DOUBLE', dur: 'DOUBLE',
        name: 'VARCHAR', args: 'xla_event_args'  -- xla_events_table.sql
    }
)
-- (not `name IN (...)`: DuckDB may turn an IN list into a join, which reorders the rows)
WHERE ph = 'X' OR (ph = 'M' AND (name = 'process_name' OR name = 'thread_name'));
