-- The replays of XLA command buffers: GPU work of a module with known programs whose
-- hlo_op is none of their ops ('command_buffer_1'), one row per launch of the buffer
-- (its work shares the launch's correlation id; without one, all of a device's work of
-- that buffer is one row), into the temp table xla_hlo_replays. Its activities in the
-- order they ran; `sig` numbers each distinct sequence of names and kinds, which
-- tui/sources/xla_hlo_match.py places once however often it was replayed.
-- Columns: hlo_module, command_buffer, device, correlation, ids, names, kinds, sig
CREATE OR REPLACE TEMP TABLE xla_hlo_replays AS
WITH replays AS (
    SELECT g.hlo_module, g.hlo_op AS command_buffer, g.device, g.correlation,
           list(g.id ORDER BY g.start_ns, g.id) AS ids,
           list(g.name ORDER BY g.start_ns, g.id) AS names,
           list(g.kind ORDER BY g.start_ns, g.id) AS kinds
    FROM gpu_activities AS g
    ANTI JOIN gpu_hlo_ops AS k ON k.gpu_id = g.id
    WHERE g.hlo_op IS NOT NULL
      AND g.hlo_module IN (SELECT DISTINCT hlo_module FROM hlo_ops)
    GROUP BY g.hlo_module, g.hlo_op, g.device, g.correlation
)
SELECT *, dense_rank() OVER (ORDER BY hlo_module, names, kinds) AS sig
FROM replays;
