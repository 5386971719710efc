-- Params: $name
-- Needs: table information_schema.tables
-- A row where this connection's temp table $name exists. information_schema, not
-- duckdb_tables(): that one's first call in a new database lists DuckDB's own catalog too,
-- ~3 ms of a small trace's load.
SELECT 1 FROM information_schema.tables WHERE table_catalog = 'temp' AND table_name = $name;
