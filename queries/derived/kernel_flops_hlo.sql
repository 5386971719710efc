-- Params: none
-- Needs: schema
-- XLA traces: each kernel's share of the FLOPs of the HLO op it ran for (hlo_ops.flops,
-- the op tied to the kernel by gpu_hlo_ops), into kernel_flops. An op runs once per run of
-- its program and may launch several kernels each time (a cuBLAS GEMM and its helpers):
-- its runs are counted as the instances of its most frequent kernel name, and its FLOPs
-- times its runs are shared among its kernel names by their total durations, and a name's
-- share evenly among its instances (each run gets the op's FLOPs). The precision is
-- the dots' left operand's type, a float32 one TF32 where the kernel's name says so (as
-- kernel_flops_write.sql).
INSERT INTO kernel_flops
WITH kernels AS (
    SELECT g.id AS gpu_id, g.name, g.duration_ns, o.program_id, o.hlo_op, h.flops,
           h.precision
    FROM gpu_hlo_ops AS o
    JOIN gpu_activities AS g ON g.id = o.gpu_id
    JOIN hlo_ops AS h
      ON h.program_id = o.program_id AND h.hlo_op = o.hlo_op AND h.hlo_module = g.hlo_module
    WHERE g.kind = 'kernel' AND h.flops > 0
), per_name AS (
    SELECT program_id, hlo_op, name, count(*) AS n FROM kernels GROUP BY ALL
), runs AS (
    SELECT program_id, hlo_op, max(n) AS runs FROM per_name GROUP BY ALL
), shared AS (
    SELECT k.*, r.runs,
           sum(k.duration_ns) OVER (PARTITION BY k.program_id, k.hlo_op, k.name) AS name_ns,
           count(*) OVER (PARTITION BY k.program_id, k.hlo_op, k.name) AS name_kernels,
           sum(k.duration_ns) OVER (PARTITION BY k.program_id, k.hlo_op) AS op_ns,
           count(DISTINCT k.name) OVER (PARTITION BY k.program_id, k.hlo_op) AS op_names
    FROM kernels AS k
    JOIN runs AS r USING (program_id, hlo_op)
)
SELECT gpu_id, NULL AS op_id,
       flops * runs / name_kernels
           * CASE WHEN op_ns > 0 THEN name_ns / op_ns ELSE 1 / op_names END,
       CASE WHEN precision = 'fp32' AND (contains(lower(name), 'tf32')
                                          OR contains(lower(name), 'tensorop')) THEN 'tf32'
            ELSE precision END,
       'hlo'
FROM shared
ORDER BY gpu_id;
