-- Params: none
-- Needs: schema
-- The trace's kernels grouped by name and launch configuration: the candidates that
-- tui/analysis/ncu/match.py compares profiled launches against (names are normalised in Python,
-- once per distinct name, not per launch).
-- Parameters: none.
-- Columns: name, grid_x, grid_y, grid_z, block_x, block_y, block_z, launches BIGINT,
--          first_id BIGINT, first_start_ns BIGINT, median_duration_ns DOUBLE,
--          total_duration_ns BIGINT.
SELECT name, grid_x, grid_y, grid_z, block_x, block_y, block_z,
       count(*)                   AS launches,
       arg_min(id, start_ns)      AS first_id,
       min(start_ns)              AS first_start_ns,
       median(duration_ns)        AS median_duration_ns,
       sum(duration_ns)           AS total_duration_ns
FROM gpu_activities
WHERE kind = 'kernel'
GROUP BY ALL
ORDER BY total_duration_ns DESC;
