-- Params: none
-- Needs: schema
-- The NVTX ranges (annotations) as intervals keyed by name (gpu_metric_means.sql): host
-- ranges, so every GPU's samples inside them count.
-- Columns: key, start_ns, end_ns
SELECT name AS key, start_ns, end_ns
FROM host_activities
WHERE kind = 'annotation' AND end_ns > start_ns
