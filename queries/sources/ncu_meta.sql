-- Params: none
-- Needs: table ncu_meta
-- Facts about the loaded Nsight Compute report (path, format, device, load warnings).
-- Parameters: none.
-- Columns: key VARCHAR, value VARCHAR.
SELECT key, value
FROM ncu_meta
ORDER BY key;
