-- Params: {view}
-- Needs: temp table {view}
-- How many rows of a TUI table pass its filter: the size of its view {view}
-- (table_order.sql). Columns: rows.
SELECT count(*) AS rows
FROM {view}
