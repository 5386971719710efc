-- Params: none
-- Needs: schema
-- The whole trace's time span over GPU and host activities. Columns: first_ns, last_ns.
SELECT min(first_ns) AS first_ns, max(last_ns) AS last_ns
FROM (
    SELECT min(start_ns) AS first_ns, max(end_ns) AS last_ns FROM gpu_activities
    UNION ALL
    SELECT min(start_ns), max(end_ns) FROM host_activities
);
