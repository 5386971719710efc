-- Params: none
-- Needs: schema
-- What the rules need and whether this trace has it: CUDA runtime calls (which call issued
-- a copy or set, which calls synchronise), copies whose memory kinds are known, sets whose
-- memory kind is known, and GPU work at all. Then, for the copy and set rules, how many
-- GPU rows pass the rule's own filter on the GPU side (the same expressions as
-- rule_cuda_memcpy_sync.sql, rule_cuda_memcpy_async.sql and rule_cuda_memset_sync.sql):
-- where none do, the rule has no rows, and its join with every runtime call is not run.
-- Columns: runtime_calls, copies, copies_with_kinds, memsets, memsets_with_kinds, gpu_rows,
--          memcpy_sync_rows, memcpy_async_rows, memset_sync_rows.
SELECT
    (SELECT count(*) FROM host_activities WHERE kind = 'runtime') AS runtime_calls,
    count(*) FILTER (WHERE kind = 'memcpy') AS copies,
    count(*) FILTER (WHERE kind = 'memcpy' AND (src_kind IS NOT NULL OR dst_kind IS NOT NULL))
        AS copies_with_kinds,
    count(*) FILTER (WHERE kind = 'memset') AS memsets,
    count(*) FILTER (WHERE kind = 'memset' AND dst_kind IS NOT NULL) AS memsets_with_kinds,
    count(*) AS gpu_rows,
    count(*) FILTER (WHERE kind = 'memcpy'
                       AND NOT (bytes <= 64000 AND copy_kind = 'HtoD')
                       AND NOT (src_device IS NOT NULL AND src_device = dst_device))
        AS memcpy_sync_rows,
    count(*) FILTER (WHERE kind = 'memcpy' AND (src_kind = 'Pageable' OR dst_kind = 'Pageable'))
        AS memcpy_async_rows,
    count(*) FILTER (WHERE kind = 'memset' AND dst_kind IN ('Pinned', 'Managed'))
        AS memset_sync_rows
FROM gpu_activities;
