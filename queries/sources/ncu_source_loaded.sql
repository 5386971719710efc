-- Params: none
-- Needs: table ncu_source_launches
-- The launches whose per-instruction results are loaded, and which have source counters.
-- Parameters: none.
-- Columns: launch_id, has_counters.
SELECT launch_id, has_counters
FROM ncu_source_launches
ORDER BY launch_id;
