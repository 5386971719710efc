-- Params: $launch_id
-- Needs: table ncu_metrics
-- All metrics of one profiled launch (input for tui/analysis/ncu/figures.py).
-- Parameters: $launch_id INTEGER.
-- Columns: section VARCHAR (NULL for raw metric names), name VARCHAR, unit VARCHAR (base
--          unit), value DOUBLE (NULL if not a number), text VARCHAR (non-numeric value).
SELECT section, name, unit, value, text
FROM ncu_metrics
WHERE launch_id = $launch_id;
