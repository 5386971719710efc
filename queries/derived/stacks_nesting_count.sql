-- Params: $kinds
-- Needs: temp table stacks_points
-- How many host ranges of the kinds in $kinds tui/derived/nesting.py will read, and how
-- many points (stacks_points.sql) it will look up among them.
SELECT (SELECT count(*) FROM host_activities WHERE list_contains($kinds, kind))
     + (SELECT count(*) FROM stacks_points);
