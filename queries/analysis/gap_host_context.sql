-- Params: none
-- Needs: temp table gap_call_parents, temp table gap_frames, temp table gap_ranges, temp table gap_top_calls, temp table selected_gaps
-- What the host was doing during each gap of `selected_gaps` (all gaps; the longest of
-- them, `context_gaps`, also have host context), from the temp tables
-- gap_top_calls / gap_call_parents / gap_ranges / gap_frames that gap_overlaps.sql fills. One row per gap:
--   call_name, call_overlap_ns: the runtime/driver call overlapping the gap the longest;
--   call_parent: the innermost CPU op enclosing that call on its thread (e.g. aten::item
--                around a sync);
--   range_name / op_name (op_overlap_ns): the innermost NVTX range or user annotation,
--           and CPU op, covering at least 30% of the gap (else the one overlapping longest);
--   range_path: the NVTX ranges or user annotations covering at least 30% of the gap,
--           outermost first, joined by ' › ' (e.g. 'host › step 3 › prepare › linalg');
--   frame_name, frame_overlap_ns: the innermost Python frame (Kineto's with_stack)
--           covering at least 30% of the gap on any thread (e.g. '<built-in function
--           sleep>'), and its time in the gap; NULL when none does;
--   launch_start_ns: when the host issued the call that launched the activity ending
--                    the gap (NULL when no launch call is correlated).
WITH ranked AS (
    -- prefer the innermost range that covers at least 30% of the gap, then the longest
    SELECT *, [CASE WHEN overlap_ns::HUGEINT * 10 >= gap_ns::HUGEINT * 3 THEN 1 ELSE 0 END,
               depth, overlap_ns] AS rank_key
    FROM gap_ranges
), ranges AS (
    SELECT gap_no,
           arg_max(name, rank_key) FILTER (WHERE kind = 'annotation') AS range_name,
           arg_max(name, rank_key) FILTER (WHERE kind = 'cpu_op') AS op_name,
           arg_max(overlap_ns, rank_key) FILTER (WHERE kind = 'cpu_op') AS op_overlap_ns,
           string_agg(name, ' › ' ORDER BY depth, overlap_ns DESC)
               FILTER (WHERE kind = 'annotation' AND rank_key[1] = 1) AS range_path
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
    l.launch_start_ns, r.range_path, f.frame_name, f.frame_overlap_ns
FROM selected_gaps AS g
LEFT JOIN gap_top_calls AS d USING (gap_no)
LEFT JOIN gap_call_parents AS p USING (gap_no)
LEFT JOIN ranges AS r USING (gap_no)
LEFT JOIN launches AS l USING (gap_no)
LEFT JOIN gap_frames AS f USING (gap_no)
ORDER BY g.gap_no;
