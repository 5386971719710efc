-- Params: $source
-- Needs: none
-- Whether the attached database $source holds the GPU counters' tables (gpu_metrics and
-- gpu_metric_names; a cache written before they were kept does not).
-- Columns: present
SELECT count(DISTINCT table_name) = 2 AS present
FROM duckdb_tables()
WHERE database_name = $source AND table_name IN ('gpu_metrics', 'gpu_metric_names')
