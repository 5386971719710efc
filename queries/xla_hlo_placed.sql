-- Each replayed activity's op, from the places worked out per sequence (the registered
-- table xla_hlo_placed: sig, pos (1-based), program_id, hlo_op, matched) into gpu_hlo_ops.
INSERT INTO gpu_hlo_ops
SELECT r.ids[p.pos], p.program_id, p.hlo_op, r.command_buffer, p.matched
FROM xla_hlo_replays AS r
JOIN xla_hlo_placed AS p ON p.sig = r.sig
WHERE p.hlo_op IS NOT NULL;
