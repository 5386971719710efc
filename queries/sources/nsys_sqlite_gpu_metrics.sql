-- Params: none
-- Needs: sqlite GPU_METRICS
-- Run inside the Nsight Systems SQLite export: every sample of every GPU metric, in the
-- export's order (time order). Columns: type_id, metric_id, ts_ns, value
SELECT CAST(typeId AS INTEGER) AS type_id, CAST(metricId AS INTEGER) AS metric_id,
       CAST(timestamp AS INTEGER) AS ts_ns, CAST(value AS INTEGER) AS value
FROM GPU_METRICS
