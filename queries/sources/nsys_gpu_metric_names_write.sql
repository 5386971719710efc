-- Params: none
-- Needs: arrow nsys_metric_devices, arrow nsys_metric_names
-- An nsys export's GPU metric names into gpu_metric_names, each under the CUDA device its
-- typeId stands for (nsys_metric_devices: type_id -> device, worked out by
-- tui/sources/nsys_gpu_metrics.py).
INSERT INTO gpu_metric_names
SELECT d.device, n.metric_id, n.name
FROM nsys_metric_names AS n
JOIN nsys_metric_devices AS d USING (type_id)
ORDER BY d.device, n.metric_id;
