-- Params: none
-- Needs: none
-- The temporary views, tables and types a loader left behind (staged rows, parsed events,
-- the types they were read as), views first: a view may read a table. Tables named
-- stacks_input_* are kept: they are input for the stacks built after (tui/derived/stacks.py
-- drops them).
-- Columns: kind ('VIEW' | 'TABLE' | 'TYPE'), name
SELECT kind, name
FROM (
    SELECT 'VIEW' AS kind, view_name AS name, 0 AS drop_order
    FROM duckdb_views() WHERE temporary AND NOT internal
    UNION ALL
    SELECT 'TABLE', table_name, 1 FROM duckdb_tables()
    WHERE temporary AND NOT starts_with(table_name, 'stacks_input_')
    UNION ALL
    SELECT 'TYPE', type_name, 2 FROM duckdb_types() WHERE database_name = 'temp' AND NOT internal
)
ORDER BY drop_order;
