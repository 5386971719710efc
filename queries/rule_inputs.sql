-- What the rules need and whether this trace has it: CUDA runtime calls (which call issued
-- a copy or set, which calls synchronise), copies whose memory kinds are known, sets whose
-- memory kind is known, and GPU work at all.
-- Columns: runtime_calls, copies, copies_with_kinds, memsets, memsets_with_kinds, gpu_rows.
SELECT
    (SELECT count(*) FROM host_activities WHERE kind = 'runtime') AS runtime_calls,
    count(*) FILTER (WHERE kind = 'memcpy') AS copies,
    count(*) FILTER (WHERE kind = 'memcpy' AND (src_kind IS NOT NULL OR dst_kind IS NOT NULL))
        AS copies_with_kinds,
    count(*) FILTER (WHERE kind = 'memset') AS memsets,
    count(*) FILTER (WHERE kind = 'memset' AND dst_kind IS NOT NULL) AS memsets_with_kinds,
    count(*) AS gpu_rows
FROM gpu_activities;
