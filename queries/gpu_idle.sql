-- Every stretch on a device where no kernel, copy or set runs on any stream: the gaps
-- in the union of all GPU activity intervals, from the device's first activity to its
-- last. Built once at load; callers filter by duration. For each gap: the activity
-- that was last to finish before it (before_id) and the one that ends it (after_id).
CREATE OR REPLACE TABLE gpu_idle AS
WITH ordered AS (
    SELECT
        id, device, start_ns, end_ns,
        max(end_ns) OVER (
            PARTITION BY device ORDER BY start_ns, end_ns, id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS busy_until
    FROM gpu_activities
), gaps AS (
    SELECT device, busy_until AS start_ns, start_ns AS end_ns, id AS after_id
    FROM ordered
    WHERE start_ns > busy_until
)
SELECT
    g.device, g.start_ns, g.end_ns, g.end_ns - g.start_ns AS duration_ns,
    (SELECT max(a.id) FROM gpu_activities AS a
     WHERE a.device = g.device AND a.end_ns = g.start_ns) AS before_id,
    g.after_id
FROM gaps AS g
ORDER BY g.device, g.start_ns;
