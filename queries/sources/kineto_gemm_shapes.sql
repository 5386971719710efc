-- Params: none
-- Needs: temp table kineto_events_more, temp macro kineto_int_id
-- The matrix products of PyTorch's GEMM ops into gemm_shapes, from their "Input Dims"
-- (record_shapes): the first two inputs of aten::mm, bmm, _scaled_mm and _int_mm, the
-- second and third of addmm and baddbmm (the first is the added term). m and k are the
-- first matrix's last two dimensions, n the second's last; an op whose dims are not
-- numbers there (no record_shapes, a shape PyTorch did not record) is left out.
INSERT INTO gemm_shapes
WITH ops AS (
    SELECT kineto_int_id(pid) AS pid, kineto_int_id(tid) AS tid, start_ns,
           start_ns + duration_ns AS end_ns, name AS op,
           CASE WHEN name = 'aten::addmm' OR name = 'aten::baddbmm' THEN 1 ELSE 0 END AS a,
           TRY_CAST(args."Input Dims" AS JSON) AS dims, TRY_CAST(args."Input type" AS JSON) AS types
    FROM kineto_events_more
    WHERE ph = 'X' AND cat = 'cpu_op' AND args."Input Dims" IS NOT NULL
      AND (name = 'aten::mm' OR name = 'aten::addmm' OR name = 'aten::bmm'
           OR name = 'aten::baddbmm' OR name = 'aten::_scaled_mm' OR name = 'aten::_int_mm')
      AND start_ns IS NOT NULL AND duration_ns >= 0
), sized AS (
    SELECT pid, tid, start_ns, end_ns, op,
           TRY_CAST(dims ->> ('$[' || a || '][#-2]') AS BIGINT) AS m,
           TRY_CAST(dims ->> ('$[' || (a + 1) || '][#-1]') AS BIGINT) AS n,
           TRY_CAST(dims ->> ('$[' || a || '][#-1]') AS BIGINT) AS k,
           types ->> ('$[' || a || ']') AS dtype
    FROM ops
)
SELECT pid, tid, start_ns, end_ns, op, m, n, k, dtype
FROM sized
WHERE m IS NOT NULL AND n IS NOT NULL AND k IS NOT NULL
ORDER BY start_ns;
