-- Params: none
-- Needs: temp table xla_events, arrow xplane_arrow
-- Append the events decoded from an XSpace .xplane.pb (tui/sources/xplane.py: an Arrow
-- table registered as xplane_arrow, `args` as JSON text) to xla_events
-- (xla_events_table.sql), the relation the trace viewer's JSON is staged into: from here
-- both forms take the same path. Args that are no JSON object read as all-NULL fields.
INSERT INTO xla_events
SELECT ph, pid, tid, ts, dur, name, TRY_CAST(TRY_CAST(args AS JSON) AS xla_event_args)
FROM xplane_arrow
-- (not `name IN (...)`: DuckDB may turn an IN list into a join, which reorders the rows)
WHERE ph = 'X' OR (ph = 'M' AND (name = 'process_name' OR name = 'thread_name'));
