-- Params: $launch_id
-- Needs: table ncu_sass, table ncu_source_text
-- The text of every source file one launch's instructions name, line by line.
-- Parameters: $launch_id.
-- Columns: file, line, text.
SELECT t.file, t.line, t.text
FROM ncu_source_text AS t
WHERE t.file IN (SELECT DISTINCT file FROM ncu_sass WHERE launch_id = $launch_id)
ORDER BY t.file, t.line;
