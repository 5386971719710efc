-- The temporary tables and views a loader left behind (staged rows, parsed events),
-- views first: a view may read a table.
-- Columns: kind ('VIEW' | 'TABLE'), name
SELECT 'VIEW' AS kind, view_name AS name FROM duckdb_views() WHERE temporary AND NOT internal
UNION ALL
SELECT 'TABLE', table_name FROM duckdb_tables()
WHERE temporary
ORDER BY kind DESC;
