-- Params: none
-- Needs: cte ranges
-- The rows of the temp table gap_overlapping, in the slot {overlapping} of gap_overlaps.sql
-- and gap_overlaps_small.sql, from the host activity each of them found overlapping a gap
-- (ranges: gap_no, gap_start, gap_end and the host_activities row): its overlap with the
-- gap and the gap's length.
-- Columns: gap_no, id, kind, pid, tid, start_ns, end_ns, name, depth, overlap_ns, gap_ns
SELECT gap_no, id, kind, pid, tid, start_ns, end_ns, name, depth,
       least(end_ns, gap_end) - greatest(start_ns, gap_start) AS overlap_ns,
       gap_end - gap_start AS gap_ns
FROM ranges
-- Python frames (millions in a with_stack trace) only where they run through a gap: what
-- gap_frames names
WHERE kind <> 'python'
   OR (least(end_ns, gap_end) - greatest(start_ns, gap_start))::HUGEINT * 10
      >= (gap_end - gap_start)::HUGEINT * 3
