-- Params: $launch_id
-- Needs: table ncu_sass, table ncu_sass_lines, table ncu_source_text
-- The text of every source file one launch's instructions name (their line table's
-- files, inlined headers included), line by line.
-- Parameters: $launch_id.
-- Columns: file, line, text.
SELECT t.file, t.line, t.text
FROM ncu_source_text AS t
WHERE t.file IN (SELECT DISTINCT file FROM ncu_sass WHERE launch_id = $launch_id
                 UNION SELECT DISTINCT file FROM ncu_sass_lines WHERE launch_id = $launch_id)
ORDER BY t.file, t.line;
