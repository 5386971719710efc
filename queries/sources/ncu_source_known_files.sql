-- Params: none
-- Needs: table ncu_source_files
-- The source files already looked up (in the report, then on disk).
-- Parameters: none.
-- Columns: file, origin ('report' | 'disk' | NULL: not found), path (the file read from disk).
SELECT file, origin, path
FROM ncu_source_files
ORDER BY file;
