-- Params: none
-- Needs: schema
-- GPU time by line of code for XLA traces (code_source 'hlo'): each GPU activity counts
-- for every frame of the Python stack that made its HLO op (hlo_ops.stack; an op with a
-- source line but no stack: that line alone), once per frame; self: the innermost frame.
-- Columns: frame ('file(line): func'), gpu_ns, self_gpu_ns, launches, self_launches
WITH per_op AS (
    SELECT o.stack, o.source_file, o.source_line, sum(g.duration_ns) AS gpu_ns,
           count(*) AS launches
    FROM gpu_hlo_ops AS k
    JOIN gpu_activities AS g ON g.id = k.gpu_id
    JOIN hlo_ops AS o
      ON o.hlo_module = g.hlo_module AND o.program_id = k.program_id AND o.hlo_op = k.hlo_op
    GROUP BY o.stack, o.source_file, o.source_line
), stacks AS (
    SELECT CASE WHEN len(stack) > 0 THEN stack
                WHEN source_file IS NOT NULL
                THEN [source_file || '(' || coalesce(source_line, 0) || ')'] END AS stack,
           gpu_ns, launches
    FROM per_op
), framed AS (
    SELECT unnest(list_distinct(stack)) AS frame, stack[len(stack)] AS innermost, gpu_ns,
           launches
    FROM stacks
    WHERE stack IS NOT NULL
)
SELECT frame, sum(gpu_ns)::BIGINT AS gpu_ns,
       coalesce(sum(gpu_ns) FILTER (WHERE frame = innermost), 0)::BIGINT AS self_gpu_ns,
       sum(launches)::BIGINT AS launches,
       coalesce(sum(launches) FILTER (WHERE frame = innermost), 0)::BIGINT AS self_launches
FROM framed
GROUP BY frame
ORDER BY gpu_ns DESC, frame;
