-- Params: none
-- Needs: table information_schema.tables
-- The temporary views, tables and types a loader left behind (staged rows, parsed events,
-- the types they were read as), views first: a view may read a table. Tables named
-- stacks_input_* are kept: they are input for the stacks built after (tui/derived/stacks.py
-- drops them). The views and tables are read from information_schema.tables, not from
-- duckdb_views(): that one's first call in a new database lists DuckDB's own views too,
-- ~3 ms of a small trace's load.
-- Columns: kind ('VIEW' | 'TABLE' | 'TYPE'), name
SELECT kind, name
FROM (
    SELECT CASE WHEN table_type = 'VIEW' THEN 'VIEW' ELSE 'TABLE' END AS kind,
           table_name AS name,
           CASE WHEN table_type = 'VIEW' THEN 0 ELSE 1 END AS drop_order
    FROM information_schema.tables
    WHERE table_catalog = 'temp' AND NOT starts_with(table_name, 'stacks_input_')
    UNION ALL
    SELECT 'TYPE', type_name, 2 FROM duckdb_types() WHERE database_name = 'temp' AND NOT internal
)
ORDER BY drop_order;
