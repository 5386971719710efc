-- Params: $multiple, $multiple_8bit
-- Needs: schema
-- PyTorch's GEMM ops (gemm_shapes: Kineto's record_shapes) with a dimension m, n or k that
-- is not a multiple of $multiple ($multiple_8bit for 8-bit types: int8, fp8), with the
-- kernels they launched: those of the CUDA runtime calls on the op's thread inside its
-- span. One row per op and shape.
-- Columns: op, m, n, k, dtype, multiple, calls, kernels, ns, names (the kernels' distinct
-- names, which tell whether they ran on tensor cores; longest first).
WITH unaligned AS (
    SELECT *
    FROM (
        SELECT *, CASE WHEN dtype ILIKE '%char%' OR dtype ILIKE '%int8%'
                            OR dtype ILIKE '%float8%'
                       THEN $multiple_8bit ELSE $multiple END AS multiple
        FROM gemm_shapes
    )
    WHERE m % multiple <> 0 OR n % multiple <> 0 OR k % multiple <> 0
), launched AS (
    SELECT u.op, u.m, u.n, u.k, u.dtype, u.multiple, u.start_ns AS call, g.duration_ns, g.name
    FROM unaligned AS u
    LEFT JOIN host_activities AS h
        ON h.kind = 'runtime' AND h.pid = u.pid AND h.tid = u.tid
       AND h.start_ns >= u.start_ns AND h.end_ns <= u.end_ns
    LEFT JOIN gpu_activities AS g ON g.kind = 'kernel' AND g.correlation = h.correlation
)
SELECT op, m, n, k, dtype, multiple, count(DISTINCT call) AS calls,
       count(duration_ns) AS kernels, coalesce(sum(duration_ns), 0)::BIGINT AS ns,
       list(DISTINCT name ORDER BY name) FILTER (WHERE name IS NOT NULL) AS names
FROM launched
GROUP BY op, m, n, k, dtype, multiple
ORDER BY ns DESC, calls DESC, op, m, n, k;
