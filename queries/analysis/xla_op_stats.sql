-- Params: none
-- Needs: schema
-- GPU time per XLA op, like XProf's hlo_stats: every kernel, copy and set an HLO op ran on
-- a GPU, total time descending. The op is the one gpu_hlo_ops ties the activity to (so
-- work replayed in a command buffer counts for its own op), else the trace's hlo_op
-- (work of a buffer no op was found for stays under 'command_buffer_1').
-- percent: share of the summed time of all GPU activities that name an op.
-- matched: the least sure way any of its activities was tied (guess, order, reuse, name,
-- op); NULL: not tied. command_buffer: the buffer it ran in (the first by name, if several).
-- Columns: hlo_module, hlo_op, program_id, category, tf_op (the trace's most common
--          framework op), op_name, source ('file:line'), user_code, command_buffer,
--          matched, count, kernels, total_ns, avg_ns, percent
WITH work AS (
    SELECT g.hlo_module, coalesce(k.hlo_op, g.hlo_op) AS hlo_op, k.program_id, g.tf_op,
           g.kind, g.duration_ns, k.command_buffer, k.matched
    FROM gpu_activities AS g
    LEFT JOIN gpu_hlo_ops AS k ON k.gpu_id = g.id
    WHERE g.hlo_op IS NOT NULL
), ops AS (
    SELECT hlo_module, hlo_op, program_id, mode(tf_op) AS tf_op, count(*) AS count,
           count(*) FILTER (WHERE kind = 'kernel') AS kernels,
           sum(duration_ns)::BIGINT AS total_ns, avg(duration_ns) AS avg_ns,
           min(command_buffer) AS command_buffer,
           CASE WHEN bool_or(matched IS NULL) THEN NULL
                WHEN bool_or(matched = 'guess') THEN 'guess'
                WHEN bool_or(matched = 'order') THEN 'order'
                WHEN bool_or(matched = 'reuse') THEN 'reuse'
                WHEN bool_or(matched = 'name') THEN 'name'
                ELSE 'op' END AS matched
    FROM work
    GROUP BY hlo_module, hlo_op, program_id
)
SELECT p.hlo_module, p.hlo_op, p.program_id, o.category, p.tf_op, o.op_name,
       o.source_file || ':' || o.source_line AS source, o.user_code, p.command_buffer,
       p.matched, p.count, p.kernels, p.total_ns, p.avg_ns,
       100.0 * p.total_ns / sum(p.total_ns) OVER () AS percent
FROM ops AS p
LEFT JOIN hlo_ops AS o
  ON o.hlo_module = p.hlo_module AND o.program_id = p.program_id AND o.hlo_op = p.hlo_op
ORDER BY p.total_ns DESC, p.hlo_module, p.hlo_op;
