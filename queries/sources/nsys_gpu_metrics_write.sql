-- Params: $time_limit, {device}, {kept}
-- Needs: arrow nsys_metric_batches
-- An nsys export's GPU metric samples (nsys_metric_batches, from
-- nsys_sqlite_gpu_metrics.sql: value and metricId packed as value * 256 + metricId) into
-- gpu_metrics, each under the CUDA device its typeId stands for ({device}: the one device
-- of an export that samples one GPU, else a CASE over the batches' type_id). Samples of
-- an unknown typeId, of a metric not kept on that device ({kept}: where the GPUs keep
-- different metrics, 'AND device * 256 + metric_id IN (...)', else nothing), or with a
-- time beyond ±$time_limit, are left out. No join: DuckDB cannot tell how many rows a
-- stream holds and built a join's hash table on the samples (all of them, grouped by
-- metric); a filter keeps the export's order (time order: DuckDB keeps the order of a
-- query without ORDER BY), so a time window's scan skips most row groups.
INSERT INTO gpu_metrics
SELECT device, metric_id, ts_ns, value
FROM (
    SELECT {device} AS device, value_metric & 255 AS metric_id, ts_ns,
           value_metric >> 8 AS value
    FROM nsys_metric_batches AS m
)
WHERE device IS NOT NULL AND ts_ns BETWEEN -$time_limit AND $time_limit{kept};
