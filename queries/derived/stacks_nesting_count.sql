-- Params: $kinds, {host}
-- Needs: temp table stacks_points, temp table {host}
-- How many host ranges of the kinds in $kinds tui/derived/nesting.py will read, and how
-- many points (stacks_points.sql) it will look up among them. {host}: host_activities, or
-- before it is written, the host rows whose depths are set (stacks_nesting_host.sql).
SELECT (SELECT count(*) FROM {host} WHERE list_contains($kinds, kind))
     + (SELECT count(*) FROM stacks_points);
