-- Params: $limit, $offset, {columns}, {view}
-- Needs: temp table {view}
-- One page of a TUI table: rows [$offset, $offset + $limit) of its sorted, filtered view
-- {view} (made by table_order.sql). Columns: the table's own.
SELECT {columns}
FROM {view}
WHERE pos >= $offset AND pos < $offset + $limit
ORDER BY pos
