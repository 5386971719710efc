-- Params: {column}, {table}
-- Needs: temp table {table}
-- The longest value of column {column} of a TUI table's temp table {table}, in
-- characters: how wide the column must be to show every value whole. Columns: chars.
SELECT max(length({column}::VARCHAR)) AS chars
FROM {table}
