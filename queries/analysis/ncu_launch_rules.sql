-- Params: $launch_id
-- Needs: table ncu_rules
-- NVIDIA's rule findings for one profiled launch, in the report's order.
-- Parameters: $launch_id INTEGER.
-- Columns: rule, section, type ('OPT'|'WRN'|'INF'|'ERR'), title, description,
--          speedup_type ('local'|'global'|NULL), speedup_pct DOUBLE.
SELECT rule, section, type, title, description, speedup_type, speedup_pct
FROM ncu_rules
WHERE launch_id = $launch_id
ORDER BY seq;
