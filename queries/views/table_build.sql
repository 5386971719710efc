-- Params: {source}, {table}
-- Needs: none
-- A table of the TUI (tui/views/table_model.py) materialised once: the rows of a
-- source query (a `table_*.sql` file) in a temp table of the table's own connection,
-- numbered so that every later page has a stable order. Sorting, filtering and paging
-- then run on this small table instead of re-running the source query for each page.
-- {table}: the temp table's name; {source}: the source query's text.
CREATE OR REPLACE TEMP TABLE {table} AS
SELECT row_number() OVER () AS row_no, *
FROM (
{source}
) AS source
