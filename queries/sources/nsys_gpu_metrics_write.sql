-- Params: $time_limit, {type_id}
-- Needs: arrow nsys_metric_batches, arrow nsys_metric_devices
-- An nsys export's GPU metric samples (nsys_metric_batches, from
-- nsys_sqlite_gpu_metrics.sql: value and metricId packed as value * 256 + metricId) into
-- gpu_metrics, each under the CUDA device its typeId stands for ({type_id}: the batches'
-- type_id column, or the one typeId of an export that samples one GPU). The samples keep
-- the export's order (time order: DuckDB keeps the order of a query without ORDER BY), so
-- a time window's scan skips most row groups; samples of an unknown typeId, of a metric
-- not kept on that device (gpu_metric_names), or with a time beyond ±$time_limit, are
-- left out.
INSERT INTO gpu_metrics
SELECT d.device, m.value_metric & 255 AS metric_id, m.ts_ns, m.value_metric >> 8 AS value
FROM nsys_metric_batches AS m
JOIN nsys_metric_devices AS d ON d.type_id = {type_id}
SEMI JOIN gpu_metric_names AS n ON n.device = d.device AND n.metric_id = m.value_metric & 255
WHERE m.ts_ns BETWEEN -$time_limit AND $time_limit;
