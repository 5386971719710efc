-- Params: {columns}, {order}, {table}, {view}, {where}
-- Needs: temp table {table}
-- A TUI table (tui/views/table_model.py) in one order with one filter: the rows of
-- temp table {table} that pass {where}, numbered by {order} from 0 (pos; row_no breaks
-- ties), into temp table {view}. Sorting once here makes every page a range of pos
-- (table_page.sql): scrolling to row 100,000 costs what scrolling to row 0 does.
-- The slots are filled (queries.fill) with quoted names from the table's fixed column
-- list and with parameter references ($pattern, $eq0 ...): text the user types only ever
-- arrives as a parameter value.
CREATE OR REPLACE TEMP TABLE {view} AS
SELECT row_number() OVER (ORDER BY {order}, row_no) - 1 AS pos, {columns}
FROM {table}
WHERE {where}
ORDER BY pos
