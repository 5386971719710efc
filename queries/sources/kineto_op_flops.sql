-- Params: none
-- Needs: temp table kineto_events_more, temp macro kineto_int_id
-- The FLOPs of the CPU ops that do floating-point work, into op_flops: the op's own
-- `flops` where the profiler wrote one (PyTorch before 2.x's with_flops), else worked out
-- from the shapes record_shapes wrote ("Input Dims"), as PyTorch counts them:
--   mm, _scaled_mm, _int_mm (A, B)          2 · prod(A) / A[-1] · prod(B)   (M·K · K·N: 2·M·K·N)
--   addmm, _addmm_activation (C, A, B)     the same over A and B
--   bmm (A, B)                             2 · prod(A) / A[0] / A[-1] · prod(B)   (2·b·M·K·N)
--   baddbmm (C, A, B)                      the same over A and B
--     (torch/csrc/profiler/util.cpp, computeFlops: the count with_flops wrote)
--   _scaled_dot_product_{flash,efficient,cudnn}_attention (q, k, v: [b, h, s, d])
--                                          2·b·h·s_q·s_k·d_q + 2·b·h·s_q·s_k·d_v
--   their _backward (grad_out, q, k, v)   2·b·h·s_q·s_k·(3·d_q + 2·d_v)
--     (torch/utils/flop_counter.py, sdpa_flop_count and sdpa_backward_flop_count: the
--     scores recomputed and four products of the backward; causal masking not counted)
-- An op inside another counted op on its thread (the profiler counted both) is left out:
-- the outer one's count holds it; of two with the same span, one is kept. Ops whose shapes are missing or give no FLOPs are left
-- out. The dtype is the first matrix input's ("Input type").
INSERT INTO op_flops
WITH ops AS (
    SELECT kineto_int_id(pid) AS pid, kineto_int_id(tid) AS tid, start_ns,
           start_ns + duration_ns AS end_ns, name,
           TRY_CAST(args.flops AS DOUBLE) AS given,
           TRY_CAST(TRY_CAST(args."Input Dims" AS JSON) AS DOUBLE[][]) AS dims,
           TRY_CAST(TRY_CAST(args."Input type" AS JSON) AS VARCHAR[]) AS types
    FROM kineto_events_more
    WHERE ph = 'X' AND cat = 'cpu_op' AND start_ns IS NOT NULL AND duration_ns >= 0
      AND (args.flops IS NOT NULL OR args."Input Dims" IS NOT NULL)
), shaped AS (
    SELECT *,
           -- the matrix operands' positions: after the added term for addmm and baddbmm
           CASE WHEN name IN ('aten::addmm', 'aten::_addmm_activation', 'aten::baddbmm')
                THEN 2 ELSE 1 END AS a_at,
           ends_with(name, '_attention_backward') AS sdpa_backward
    FROM ops
), counted AS (
    SELECT pid, tid, start_ns, end_ns, name,
           CASE
               WHEN given IS NOT NULL THEN given
               WHEN name IN ('aten::mm', 'aten::_scaled_mm', 'aten::_int_mm', 'aten::addmm',
                             'aten::_addmm_activation')
                    AND len(dims[a_at]) >= 1 AND dims[a_at][-1] > 0
                   THEN 2 * list_product(dims[a_at]) / dims[a_at][-1]
                        * list_product(dims[a_at + 1])
               WHEN name IN ('aten::bmm', 'aten::baddbmm')
                    AND len(dims[a_at]) = 3 AND dims[a_at][1] > 0 AND dims[a_at][-1] > 0
                   THEN 2 * list_product(dims[a_at]) / dims[a_at][1] / dims[a_at][-1]
                        * list_product(dims[a_at + 1])
               WHEN starts_with(name, 'aten::_scaled_dot_product_') AND NOT sdpa_backward
                    AND len(dims[1]) = 4 AND len(dims[2]) = 4 AND len(dims[3]) = 4
                   THEN 2 * dims[1][1] * dims[1][2] * dims[1][3] * dims[2][3]
                        * (dims[1][4] + dims[3][4])
               WHEN starts_with(name, 'aten::_scaled_dot_product_') AND sdpa_backward
                    AND len(dims[2]) = 4 AND len(dims[3]) = 4 AND len(dims[4]) = 4
                   THEN 2 * dims[2][1] * dims[2][2] * dims[2][3] * dims[3][3]
                        * (3 * dims[2][4] + 2 * dims[4][4])
           END AS flops,
           CASE WHEN sdpa_backward THEN types[2] ELSE types[a_at] END AS dtype,
           CASE WHEN given IS NOT NULL THEN 'args' ELSE 'shapes' END AS source
    FROM shaped
), ordered AS (
    -- the latest end among the ops that began before (or with) each on its thread: at or
    -- after its own end, one of them holds it (a window, not a self-join: a trace may have
    -- a million GEMMs on one thread)
    SELECT *, max(end_ns) OVER (PARTITION BY pid, tid ORDER BY start_ns, end_ns DESC
                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS outer_end
    FROM counted
    WHERE flops > 0
)
SELECT pid, tid, start_ns, end_ns, name, flops, nullif(dtype, ''), source
FROM ordered
WHERE outer_end IS NULL OR outer_end < end_ns
ORDER BY start_ns;
