-- Params: none
-- Needs: schema
-- Whether the trace holds XLA's own NVTX ranges (an nsys report of a JAX or TensorFlow
-- program: `XlaModule:#hlo_module=jit_step,program_id=5#`, `XlaCompileBackend:#…#`).
-- Columns: found
SELECT EXISTS (
    SELECT 1 FROM host_activities
    WHERE kind = 'annotation' AND starts_with(name, 'Xla')
      AND regexp_matches(name, '^Xla[A-Za-z]+:#')
) AS found;
