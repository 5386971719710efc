-- Params: none
-- Needs: sqlite DIAGNOSTIC_EVENT
-- Run inside the Nsight Systems SQLite export: the errors its import of the report's
-- events logged (source 3, Analysis; text "Error when processing events", logged as
-- warnings, e.g. "Cannot find string for an exterior index", where events of XLA's
-- command buffers were dropped): the events they dropped are missing from the export.
-- Columns: errors, first (the earliest one's text).
SELECT (SELECT count(*) FROM DIAGNOSTIC_EVENT
        WHERE source = 3 AND text LIKE 'Error%') AS errors,
       (SELECT text FROM DIAGNOSTIC_EVENT WHERE source = 3 AND text LIKE 'Error%'
        ORDER BY timestamp LIMIT 1) AS first;
