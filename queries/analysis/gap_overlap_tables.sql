-- Params: none
-- Needs: temp table gap_overlapping, temp table selected_gaps
-- What gap_host_context.sql reads of the host activity overlapping each gap (the temp table
-- gap_overlapping), as temp tables, in the slot {tables} of gap_overlaps.sql and
-- gap_overlaps_small.sql: the ranges and ops (gap_ranges), the innermost Python frame
-- (gap_frames) and the longest-overlapping runtime call (gap_top_calls) of each gap.
CREATE OR REPLACE TEMP TABLE gap_ranges AS
SELECT gap_no, kind, name, depth, overlap_ns, gap_ns
FROM gap_overlapping
WHERE kind IN ('annotation', 'cpu_op');

-- The innermost Python frame of each gap: of the frames covering at least 30% of the gap
-- (the only ones kept), the deepest (what the host was running: `time.sleep` inside a
-- step's range) on the thread that launched the work ending the gap, where it has one;
-- else on any thread. Depths compare within a thread only: another thread's deepest frame
-- (a DataLoader's pin-memory thread in `poll`, waiting) says nothing of what held the
-- launching thread up.
CREATE OR REPLACE TEMP TABLE gap_frames AS
WITH launchers AS (
    SELECT g.gap_no, arg_min([h.pid, h.tid], h.start_ns) AS thread
    FROM selected_gaps AS g
    JOIN host_activities AS h
      ON h.kind = 'runtime' AND h.correlation = g.after_correlation
    WHERE g.with_context
    GROUP BY g.gap_no
), ranked AS (
    SELECT f.gap_no, f.name, f.overlap_ns,
           [CASE WHEN [f.pid, f.tid] = l.thread THEN 1 ELSE 0 END, f.depth,
            f.overlap_ns] AS rank_key
    FROM gap_overlapping AS f
    LEFT JOIN launchers AS l USING (gap_no)
    WHERE f.kind = 'python'
)
SELECT gap_no,
       arg_max(name, rank_key) AS frame_name,
       arg_max(overlap_ns, rank_key) AS frame_overlap_ns
FROM ranked
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
