-- Params: {overlapping}, {tables}
-- Needs: temp table gap_top_calls, temp table selected_gaps
-- gap_overlaps.sql for a trace of at most PLAIN_JOIN_ROWS host activities
-- (tui/analysis/gaps.py): the same temp tables (context_gaps, gap_overlapping, gap_ranges,
-- gap_frames, gap_top_calls, gap_call_parents), the host activity overlapping each gap
-- found by one interval join, and each top call's enclosing ops by one join on its thread,
-- without gap_overlaps.sql's buckets of time (which pay past tens of thousands of rows:
-- their plan was ~half of its ~5 ms on a DDP rank). A row's duration is its end less its
-- start, as gap_overlaps.sql's buckets take it.
-- The slots as in gap_overlaps.sql.
CREATE OR REPLACE TEMP VIEW context_gaps AS
SELECT gap_no, device, start_ns, end_ns FROM selected_gaps WHERE with_context;

CREATE OR REPLACE TEMP TABLE gap_overlapping AS
WITH ranges AS (
    SELECT g.gap_no, g.start_ns AS gap_start, g.end_ns AS gap_end, h.*
    FROM host_activities AS h, context_gaps AS g
    WHERE h.duration_ns IS NOT NULL
      AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns
)
SELECT * FROM ({overlapping});

{tables};

-- The innermost CPU op enclosing each top call on its thread.
CREATE OR REPLACE TEMP TABLE gap_call_parents AS
SELECT d.gap_no, arg_max(o.name, o.depth) AS call_parent
FROM gap_top_calls AS d, host_activities AS o
WHERE o.kind = 'cpu_op' AND o.duration_ns IS NOT NULL
  AND o.pid = d.pid AND o.tid = d.tid
  AND o.start_ns <= d.call_start_ns AND o.end_ns >= d.call_end_ns
GROUP BY d.gap_no;
