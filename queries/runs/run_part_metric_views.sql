-- Params: {schema}, {source}
-- Needs: table {schema}.part, table {source}.gpu_metric_names, table {source}.gpu_metrics
-- One rank of a multi-process report (run_part_views.sql): the hardware counters of its
-- GPU only (nsys --gpu-metrics-devices samples every GPU of the machine), so that the
-- rank's counter means are its own GPU's. A report cached before the counters were kept
-- has no such tables; then these views are not made (tui/runs/combine.py).
CREATE VIEW {schema}.gpu_metric_names AS
    FROM {source}.gpu_metric_names WHERE device = (SELECT device FROM {schema}.part);
CREATE VIEW {schema}.gpu_metrics AS
    FROM {source}.gpu_metrics WHERE device = (SELECT device FROM {schema}.part);
