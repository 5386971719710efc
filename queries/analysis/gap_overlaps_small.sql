-- Params: none
-- Needs: temp table selected_gaps
-- gap_overlaps.sql for a trace of at most PLAIN_JOIN_ROWS host activities
-- (tui/analysis/gaps.py): the same temp tables (context_gaps, gap_overlapping, gap_ranges,
-- gap_frames, gap_top_calls, gap_call_parents), the host activity overlapping each gap
-- found by one interval join, and each top call's enclosing ops by one join on its thread,
-- without gap_overlaps.sql's buckets of time (which pay past tens of thousands of rows:
-- their plan was ~half of its ~5 ms on a DDP rank). A row's duration is its end less its
-- start, as gap_overlaps.sql's buckets take it.
CREATE OR REPLACE TEMP VIEW context_gaps AS
SELECT gap_no, device, start_ns, end_ns FROM selected_gaps WHERE with_context;

CREATE OR REPLACE TEMP TABLE gap_overlapping AS
WITH ranges AS (
    SELECT g.gap_no, g.start_ns AS gap_start, g.end_ns AS gap_end, h.*
    FROM host_activities AS h, context_gaps AS g
    WHERE h.duration_ns IS NOT NULL
      AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns
)
SELECT gap_no, id, kind, pid, tid, start_ns, end_ns, name, depth,
       least(end_ns, gap_end) - greatest(start_ns, gap_start) AS overlap_ns,
       gap_end - gap_start AS gap_ns
FROM ranges
-- Python frames (millions in a with_stack trace) only where they run through a gap: what
-- gap_frames names
WHERE kind <> 'python'
   OR (least(end_ns, gap_end) - greatest(start_ns, gap_start))::HUGEINT * 10
      >= (gap_end - gap_start)::HUGEINT * 3;

CREATE OR REPLACE TEMP TABLE gap_ranges AS
SELECT gap_no, kind, name, depth, overlap_ns, gap_ns
FROM gap_overlapping
WHERE kind IN ('annotation', 'cpu_op');

-- The innermost Python frame of each gap, on any thread: of the frames covering at least
-- 30% of the gap (the only ones kept), the deepest (what the host was running: `time.sleep`
-- inside a step's range).
CREATE OR REPLACE TEMP TABLE gap_frames AS
SELECT gap_no,
       arg_max(name, [depth, overlap_ns]) AS frame_name,
       arg_max(overlap_ns, [depth, overlap_ns]) AS frame_overlap_ns
FROM gap_overlapping
WHERE kind = 'python'
GROUP BY gap_no;

-- The longest-overlapping call of each gap (of equals, the first by id).
CREATE OR REPLACE TEMP TABLE gap_top_calls AS
SELECT gap_no, top.overlap_ns AS call_overlap_ns, top.name AS call_name, top.pid, top.tid,
       top.start_ns AS call_start_ns, top.end_ns AS call_end_ns
FROM (
    SELECT gap_no,
           arg_max({'overlap_ns': overlap_ns, 'name': name, 'pid': pid, 'tid': tid,
                    'start_ns': start_ns, 'end_ns': end_ns}, [overlap_ns, -id]) AS top
    FROM gap_overlapping
    WHERE kind = 'runtime'
    GROUP BY gap_no
);

-- The innermost CPU op enclosing each top call on its thread.
CREATE OR REPLACE TEMP TABLE gap_call_parents AS
SELECT d.gap_no, arg_max(o.name, o.depth) AS call_parent
FROM gap_top_calls AS d, host_activities AS o
WHERE o.kind = 'cpu_op' AND o.duration_ns IS NOT NULL
  AND o.pid = d.pid AND o.tid = d.tid
  AND o.start_ns <= d.call_start_ns AND o.end_ns >= d.call_end_ns
GROUP BY d.gap_no;
