-- Params: none
-- Needs: schema
-- The collectives an XLA program ran (its HLO collectives, hlo_ops), one row a kernel that
-- ran one (tied to its op in gpu_hlo_ops), into collectives as the calls of Kineto's
-- record_param_comms are: the collective (XLA's opcode: 'all-reduce'), its group (the
-- devices of the op's groups that hold the kernel's device; no groups: every device that
-- ran work), named by the mesh axes it runs over where the HLO names them, else by its
-- groups; the elements in and out as nccl-tests sizes them (an all-gather's output is the
-- group's inputs, a reduce-scatter's input the group's outputs); the type in c10's names
-- (a type without one, or mixed types: bytes, as 'Byte'); backward where JAX's op path
-- says the op is a transposed one ('transpose(jvp(...))': the gradient's); the kernel's
-- launch call (its thread and time; the kernel's own time without one) and correlation.
-- A collective-permute's group is every device of its source-target pairs; its peer the
-- device this one sends to.
INSERT INTO collectives
WITH every_device AS (
    SELECT list(DISTINCT device ORDER BY device) AS devices
    FROM gpu_activities WHERE device IS NOT NULL
), ran AS (
    SELECT g.device, g.correlation, g.start_ns, g.end_ns, g.id,
           regexp_replace(o.opcode, '-start$', '') AS collective, o.op_name, o.elements,
           o.dtype, o.bytes, o.replica_groups, o.mesh_axes,
           TRY_CAST(o.replica_groups AS BIGINT[][]) AS groups
    FROM gpu_activities AS g
    JOIN gpu_hlo_ops AS k ON k.gpu_id = g.id
    JOIN hlo_ops AS o
      ON o.hlo_module = g.hlo_module AND o.program_id = k.program_id AND o.hlo_op = k.hlo_op
    WHERE g.kind = 'kernel'
      AND regexp_replace(o.opcode, '-start$', '') IN (
          'all-reduce', 'all-gather', 'reduce-scatter', 'all-to-all', 'ragged-all-to-all',
          'collective-permute', 'collective-broadcast', 'send', 'recv')
), grouped AS (
    SELECT r.*,
           CASE WHEN r.groups IS NULL THEN (SELECT devices FROM every_device)
                WHEN r.collective = 'collective-permute'
                    THEN list_sort(list_distinct(flatten(r.groups)))
                ELSE list_filter(r.groups, lambda x: list_contains(x, r.device))[1] END AS members,
           CASE WHEN r.collective = 'collective-permute'
                THEN list_filter(r.groups, lambda x: x[1] = r.device)[1][2] END AS peer
    FROM ran AS r
), typed AS (
    SELECT *, len(members) AS n,
           CASE dtype WHEN 'f32' THEN 'Float' WHEN 'bf16' THEN 'BFloat16'
                      WHEN 'f16' THEN 'Half' WHEN 'f64' THEN 'Double' WHEN 's32' THEN 'Int'
                      WHEN 's64' THEN 'Long' WHEN 's16' THEN 'Short' WHEN 's8' THEN 'Char'
                      WHEN 'u8' THEN 'Byte' WHEN 'pred' THEN 'Bool'
                      WHEN 'c64' THEN 'ComplexFloat' END AS c10_type
    FROM grouped
)
SELECT h.tid, coalesce(h.start_ns, t.start_ns), coalesce(h.end_ns, t.start_ns),
       t.collective,
       coalesce(t.mesh_axes, 'devices') || CASE WHEN len(t.groups) > 1
           AND t.collective <> 'collective-permute' THEN ' ' || t.members::VARCHAR ELSE '' END
           AS process_group,
       t.replica_groups AS group_desc, t.members::VARCHAR AS group_ranks, t.n AS group_size,
       t.peer,
       CASE t.collective WHEN 'reduce-scatter' THEN size * t.n
                         WHEN 'all-gather' THEN size // greatest(t.n, 1) ELSE size END,
       size,
       coalesce(t.c10_type, 'Byte'),
       coalesce(t.op_name LIKE '%transpose(%', false),
       t.correlation
FROM (SELECT *, CASE WHEN c10_type IS NULL THEN bytes ELSE elements END AS size FROM typed) AS t
LEFT JOIN launches AS l ON l.gpu_id = t.id
LEFT JOIN host_activities AS h ON h.id = l.runtime_id
ORDER BY coalesce(h.start_ns, t.start_ns);
