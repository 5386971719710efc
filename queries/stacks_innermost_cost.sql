-- Which way stacks.py finds the points' innermost ranges: an estimate of the level
-- lookups the ASOF way needs (each point, for each kind in $kinds, searching the levels
-- above its last-started range: about the ranges' mean depth), and the ranges the sweep
-- (stacks_innermost.sql) sorts instead.
SELECT (SELECT count(*) FROM stacks_points) * len($kinds)
           * coalesce(avg(depth), 0) AS level_lookups,
       count(*) AS ranges
FROM host_activities
WHERE list_contains($kinds, kind);
