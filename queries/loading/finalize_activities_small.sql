-- Params: {staged_gpu}
-- Needs: temp table {staged_gpu}
-- finalize_activities.sql for a small trace (tui.loading.trace.keeps_whole_share): the
-- same rows, in the same order, with the same ids, sorted by the names' own text. The
-- ENUM of the distinct names that finalize_activities.sql sorts by pays where names are
-- many and long; on a DDP rank's 1,925 activities its second pass over the staged rows
-- took a third of the write's ~12 ms.
INSERT INTO gpu_activities
SELECT NULL AS id, * REPLACE (coalesce(name, '(no name)') AS name)
FROM (
    SELECT * FROM {staged_gpu}
    ORDER BY device, start_ns, end_ns, stream, name NULLS LAST
);

UPDATE gpu_activities SET id = rowid;
