-- Params: none
-- Needs: temp table xla_events
-- The processes of an XLA profile, as its 'process_name' metadata events name them.
-- Columns: pid, name
SELECT pid, any_value(args.name) AS name
FROM xla_events
WHERE ph = 'M' AND name = 'process_name'
GROUP BY pid
ORDER BY pid;
