-- Params: $frame, $path
-- Needs: schema
-- The GPU work of an XLA trace under a line of code or an op path (code_source 'hlo'), by
-- kernel name: for the Code tab's Enter. $frame: work whose op's stack holds that frame
-- ('' for none); $path: work whose op path is it or below it ('' for none). The first
-- activity is where Enter jumps.
-- Columns: name, count, total_ns, avg_ns, first_id, first_start_ns, first_end_ns,
--          first_device, first_stream
SELECT g.name, count(*) AS count, sum(g.duration_ns)::BIGINT AS total_ns,
       avg(g.duration_ns) AS avg_ns,
       arg_min(g.id, g.start_ns) AS first_id, min(g.start_ns) AS first_start_ns,
       arg_min(g.end_ns, g.start_ns) AS first_end_ns,
       arg_min(g.device, g.start_ns) AS first_device,
       arg_min(g.stream, g.start_ns) AS first_stream
FROM gpu_hlo_ops AS k
JOIN gpu_activities AS g ON g.id = k.gpu_id
JOIN hlo_ops AS o
  ON o.hlo_module = g.hlo_module AND o.program_id = k.program_id AND o.hlo_op = k.hlo_op
WHERE ($frame <> '' AND (list_contains(o.stack, $frame)
                         OR o.source_file || '(' || coalesce(o.source_line, 0) || ')' = $frame))
   OR ($path <> '' AND (split_part(o.op_name, ';', 1) = $path
                        OR starts_with(split_part(o.op_name, ';', 1), $path || '/')))
GROUP BY g.name
