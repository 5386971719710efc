-- Params: none
-- Needs: schema
-- What was worked out for the work of each XLA command buffer (gpu_hlo_ops), checked
-- against the counts: per module and buffer, how often it was replayed (launches: distinct
-- correlation ids), its activities in all and per replay, the distinct ops they were tied
-- to and the ops the module's programs have, and how many were tied which way.
-- Columns: hlo_module, command_buffer, replays, activities, per_replay, ops, program_ops,
--          name, reuse, order, guess, untied, total_ns
WITH buffers AS (
    SELECT g.hlo_module, g.hlo_op AS command_buffer, g.correlation, g.id, g.duration_ns,
           k.hlo_op, k.program_id, k.matched
    FROM gpu_activities AS g
    LEFT JOIN gpu_hlo_ops AS k ON k.gpu_id = g.id
    WHERE g.hlo_op IS NOT NULL AND (k.command_buffer IS NOT NULL OR k.gpu_id IS NULL)
      AND g.hlo_module IN (SELECT DISTINCT hlo_module FROM hlo_ops)
), per_buffer AS (
    SELECT hlo_module, command_buffer, count(DISTINCT correlation) AS replays,
           count(*) AS activities, count(DISTINCT hlo_op) AS ops,
           min(program_id) AS program_id,
           count(*) FILTER (WHERE matched = 'name') AS name,
           count(*) FILTER (WHERE matched = 'reuse') AS reuse,
           count(*) FILTER (WHERE matched = 'order') AS "order",
           count(*) FILTER (WHERE matched = 'guess') AS guess,
           count(*) FILTER (WHERE matched IS NULL) AS untied,
           sum(duration_ns)::BIGINT AS total_ns
    FROM buffers
    GROUP BY hlo_module, command_buffer
), program_ops AS (
    SELECT hlo_module, program_id, count(*) AS program_ops
    FROM hlo_schedule
    GROUP BY hlo_module, program_id
)
SELECT b.hlo_module, b.command_buffer, b.replays, b.activities,
       b.activities // greatest(b.replays, 1) AS per_replay, b.ops, p.program_ops,
       b.name, b.reuse, b."order", b.guess, b.untied, b.total_ns
FROM per_buffer AS b
LEFT JOIN program_ops AS p USING (hlo_module, program_id)
ORDER BY b.total_ns DESC, b.hlo_module, b.command_buffer;
