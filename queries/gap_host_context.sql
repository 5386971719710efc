-- What the host was doing during each gap of the temp table `selected_gaps`
-- (gap_no, device, start_ns, end_ns). One row per gap:
--   call_*: the runtime/driver call overlapping the gap the longest, and the innermost
--           CPU op enclosing that call on its thread (e.g. aten::item around a sync);
--   range_name / op_name: the innermost NVTX range or user annotation, and CPU op,
--           covering at least 30% of the gap (else the one overlapping it longest);
--   launch_start_ns: when the host issued the call that launched the activity ending
--                    the gap (NULL when no launch call is correlated).
WITH calls AS (
    SELECT g.gap_no, h.id, h.pid, h.tid, h.start_ns, h.end_ns, h.name,
           least(h.end_ns, g.end_ns) - greatest(h.start_ns, g.start_ns) AS overlap_ns
    FROM selected_gaps AS g
    JOIN host_activities AS h
      ON h.kind = 'runtime' AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns
), top_call AS (
    SELECT gap_no, arg_max(id, overlap_ns) AS call_id, max(overlap_ns) AS call_overlap_ns
    FROM calls GROUP BY gap_no
), call_details AS (
    SELECT t.gap_no, t.call_overlap_ns, c.name AS call_name, c.pid, c.tid,
           c.start_ns AS call_start_ns, c.end_ns AS call_end_ns
    FROM top_call AS t JOIN host_activities AS c ON c.id = t.call_id
), call_parent AS (
    SELECT d.gap_no, arg_max(o.name, o.depth) AS call_parent
    FROM call_details AS d
    JOIN host_activities AS o
      ON o.kind = 'cpu_op' AND o.pid = d.pid AND o.tid = d.tid
     AND o.start_ns <= d.call_start_ns AND o.end_ns >= d.call_end_ns
    GROUP BY d.gap_no
), host_overlaps AS (
    SELECT g.gap_no, h.kind, h.name,
           least(h.end_ns, g.end_ns) - greatest(h.start_ns, g.start_ns) AS overlap_ns,
           g.end_ns - g.start_ns AS gap_ns, h.depth
    FROM selected_gaps AS g
    JOIN host_activities AS h
      ON h.kind IN ('annotation', 'cpu_op') AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns
), ranked AS (
    -- prefer the innermost range that covers at least 30% of the gap, then the longest
    SELECT *, [CASE WHEN overlap_ns * 10 >= gap_ns * 3 THEN 1 ELSE 0 END, depth, overlap_ns]
              AS rank_key
    FROM host_overlaps
), ranges AS (
    SELECT gap_no,
           arg_max(name, rank_key) FILTER (WHERE kind = 'annotation') AS range_name,
           arg_max(name, rank_key) FILTER (WHERE kind = 'cpu_op') AS op_name,
           arg_max(overlap_ns, rank_key) FILTER (WHERE kind = 'cpu_op') AS op_overlap_ns
    FROM ranked
    GROUP BY gap_no
), launches AS (
    SELECT g.gap_no, min(h.start_ns) AS launch_start_ns
    FROM selected_gaps AS g
    JOIN host_activities AS h
      ON h.kind = 'runtime' AND h.correlation = g.after_correlation
    GROUP BY g.gap_no
)
SELECT
    g.gap_no,
    d.call_name, d.call_overlap_ns, p.call_parent,
    r.range_name, r.op_name, r.op_overlap_ns,
    l.launch_start_ns
FROM selected_gaps AS g
LEFT JOIN call_details AS d USING (gap_no)
LEFT JOIN call_parent AS p USING (gap_no)
LEFT JOIN ranges AS r USING (gap_no)
LEFT JOIN launches AS l USING (gap_no)
ORDER BY g.gap_no;
