-- Params: {type_id}
-- Needs: sqlite GPU_METRICS
-- Run inside the Nsight Systems SQLite export: every sample of every GPU metric, in the
-- export's order (time order), and its typeId where the export samples several GPUs
-- ({type_id}: ', typeId AS type_id', else nothing: reading a column costs a fifth of the
-- read). The columns are declared INTEGER NOT NULL: no casts needed.
-- Columns: metric_id, ts_ns, value[, type_id]
SELECT metricId AS metric_id, timestamp AS ts_ns, value{type_id}
FROM GPU_METRICS
