-- Params: $device
-- Needs: schema
-- The names of the GPU metrics device $device sampled. Columns: name
SELECT name FROM gpu_metric_names WHERE device = $device ORDER BY metric_id
