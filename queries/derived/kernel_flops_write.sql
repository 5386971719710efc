-- Params: none
-- Needs: schema
-- Each kernel's share of the FLOPs of the op that launched it (op_flops), into
-- kernel_flops. A kernel belongs to the op whose time on its thread holds the runtime call
-- that launched it (the call's correlation id names the kernel); counted ops do not nest
-- (kineto_op_flops.sql), so a call has one op at most. An op that launched several
-- kernels (a GEMM and its split-K reduction, attention's passes) shares its FLOPs among
-- them by their durations.
-- The precision is the op's input type; a float32 GEMM is TF32 where its kernel's name
-- says it ran on tensor cores with TF32 ('tf32' or a CUTLASS 'tensorop' kernel: an 's1688'
-- single-precision tensor-core GEMM), else FP32.
INSERT INTO kernel_flops
WITH ops AS (
    SELECT o.*, h.id AS op_id
    FROM op_flops AS o
    LEFT JOIN host_activities AS h
      ON h.kind = 'cpu_op' AND h.pid = o.pid AND h.tid = o.tid AND h.start_ns = o.start_ns
     AND h.name = o.name
), calls AS (
    SELECT pid, tid, start_ns, correlation
    FROM host_activities
    WHERE kind = 'runtime' AND correlation IS NOT NULL
), owned AS (
    -- each launch call with the op that began last at or before it on its thread
    SELECT c.correlation, o.op_id, o.flops, o.dtype, o.source, o.end_ns, c.start_ns
    FROM calls AS c
    ASOF JOIN ops AS o ON c.pid = o.pid AND c.tid = o.tid AND c.start_ns >= o.start_ns
), kernels AS (
    SELECT g.id AS gpu_id, g.name, g.duration_ns, w.op_id, w.flops, w.dtype, w.source
    FROM owned AS w
    JOIN gpu_activities AS g ON g.correlation = w.correlation AND g.kind = 'kernel'
    WHERE w.start_ns < w.end_ns
), shared AS (
    SELECT *, sum(duration_ns) OVER (PARTITION BY op_id) AS op_ns,
           count(*) OVER (PARTITION BY op_id) AS op_kernels
    FROM kernels
)
SELECT gpu_id, op_id,
       CASE WHEN op_ns > 0 THEN flops * duration_ns / op_ns ELSE flops / op_kernels END,
       CASE
           WHEN dtype = 'c10::BFloat16' THEN 'bf16'
           WHEN dtype = 'c10::Half' THEN 'fp16'
           WHEN dtype = 'float' AND (contains(lower(name), 'tf32')
                                     OR contains(lower(name), 'tensorop')) THEN 'tf32'
           WHEN dtype = 'float' THEN 'fp32'
           WHEN dtype = 'double' THEN 'fp64'
           WHEN starts_with(dtype, 'c10::Float8') THEN 'fp8'
           WHEN dtype IN ('signed char', 'unsigned char', 'char') THEN 'int8'
       END,
       source
FROM shared
ORDER BY gpu_id;
