-- Params: $end_ns, $start_ns
-- Needs: none
-- The window of work the diagnosis describes (tui/analysis/window.py), as one interval
-- keyed 'window' (gpu_metric_means.sql).
-- Columns: key, start_ns, end_ns
SELECT 'window' AS key, $start_ns::BIGINT AS start_ns, $end_ns::BIGINT AS end_ns
