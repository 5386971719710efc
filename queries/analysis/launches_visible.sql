-- Params: none
-- Needs: table information_schema.tables
-- A row where the database and schema in use hold a launches table: a trace's cache does;
-- a rank's store written before launches were kept, and a run's views over its ranks'
-- tables, do not.
SELECT 1
FROM information_schema.tables
WHERE table_catalog = current_database() AND table_schema = current_schema()
  AND table_name = 'launches';
