-- Params: none
-- Needs: sqlite TARGET_INFO_GPU_METRICS
-- Run inside the Nsight Systems SQLite export (recorded with --gpu-metrics-devices): the
-- metrics each sampled GPU reports, one row per (typeId, metricId).
-- Columns: type_id, metric_id, name
SELECT DISTINCT CAST(typeId AS INTEGER) AS type_id, CAST(metricId AS INTEGER) AS metric_id,
       CAST(metricName AS TEXT) AS name
FROM TARGET_INFO_GPU_METRICS
