-- Params: none
-- Needs: temp table staged_host
-- After a loader staged its rows (staged_host: a temp table, or a view over the events it
-- parsed): copy the host rows, in their order, into finalize.host_rows, whose row ids
-- become the host ids. `finalize` is an in-memory database attached for the purpose:
-- unlike a temp table, a second connection can read it, so tui/derived/host_depth.py
-- computes the depths there (setting `depth`, NULL until then) while this connection
-- writes the GPU rows (finalize_activities.sql).
ATTACH ':memory:' AS finalize;

CREATE TABLE finalize.host_rows AS
SELECT * REPLACE (coalesce(name, '(no name)') AS name, NULL::INTEGER AS depth)
FROM staged_host;
