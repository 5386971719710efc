-- Params: {columns}, {view}
-- Needs: temp table {view}
-- Every row of a TUI table's sorted, filtered view {view} (table_order.sql), in order:
-- what export writes. Columns: the table's own.
SELECT {columns}
FROM {view}
ORDER BY pos
