-- Params: $launch_id
-- Needs: table ncu_sass_lines
-- Every source line of one launch's instructions (inlined frames included), in address
-- order: the rows of ncu_sass_lines.
-- Parameters: $launch_id.
-- Columns: address, file, line.
SELECT address, file, line
FROM ncu_sass_lines
WHERE launch_id = $launch_id
ORDER BY address, file, line;
