-- Params: $first, $last, {metric_ids}, {type_id}
-- Needs: sqlite GPU_METRICS
-- Run inside the Nsight Systems SQLite export: the samples of the metrics tui keeps
-- ({metric_ids}: their metricIds, each below 256) among the rows whose rowid is in
-- [$first, $last] (one part of the table: parts are read on connections of their own at
-- once), in the export's order (time order), and their typeId where the export samples
-- several GPUs ({type_id}: ', typeId AS type_id', else nothing). The value and the
-- metricId travel packed in one column (value * 256 + metricId; the kept metrics are
-- shares of peak, 0 to 100): each column read costs about a fifth of the read. The
-- columns are declared INTEGER NOT NULL.
-- Columns: ts_ns, value_metric[, type_id]
SELECT timestamp AS ts_ns, value * 256 + metricId AS value_metric{type_id}
FROM GPU_METRICS
WHERE rowid BETWEEN $first AND $last AND metricId IN ({metric_ids})
