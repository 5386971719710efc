-- As finalize_host_rows.sql, for a loader that staged its host rows with their depths
-- (tui/sources/xla_depth.py): copy them, in their order and with the depths, into
-- finalize.host_rows, whose row ids become the host ids; host_rows_write.sql writes them.
ATTACH ':memory:' AS finalize;

CREATE TABLE finalize.host_rows AS
SELECT * REPLACE (coalesce(name, '(no name)') AS name)
FROM staged_host;
