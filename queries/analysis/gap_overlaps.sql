-- Params: {overlapping}, {tables}
-- Needs: temp table gap_top_calls, temp table selected_gaps
-- Host activity overlapping each gap of `context_gaps` (the longest gaps of selected_gaps,
-- gaps_selected.sql), into temp tables read by gap_host_context.sql: ranges and ops
-- (gap_ranges), Python frames (gap_frames), runtime calls (gap_top_calls, gap_call_parents).
-- The slots: {overlapping}, gap_overlapping_rows.sql; {tables}, gap_overlap_tables.sql
-- (which makes gap_top_calls), the part gap_overlaps_small.sql shares.
-- Host rows number in the millions (10M+ API calls in a big nsys export) and are not
-- stored in time order, so even an IEJoin of them against the gaps takes seconds; inside
-- one big query DuckDB may pick a merge join that is slower still. But almost every host
-- range is far shorter than a time bucket (at least 1 ms, wider when the gaps are long, so
-- that they span at most ~1M buckets): such a range can only overlap a gap if it starts in
-- a bucket from the one before the gap to the one the gap ends in, an equality join. The
-- few longer ranges take the range join. `//` truncates towards zero, but it never
-- decreases, which is all the bucket ranges need.
CREATE OR REPLACE TEMP VIEW context_gaps AS
SELECT gap_no, device, start_ns, end_ns FROM selected_gaps WHERE with_context;

CREATE OR REPLACE TEMP TABLE gap_bucket_width AS
SELECT CAST(least(greatest(1000000, coalesce(sum(end_ns - start_ns), 0) // 1000000),
                  4611686018427387903) AS BIGINT) AS bucket_ns
FROM context_gaps;

CREATE OR REPLACE TEMP TABLE gap_overlapping AS
WITH gap_buckets AS (
    SELECT g.gap_no, g.start_ns, g.end_ns,
           unnest(range((g.start_ns - w.bucket_ns) // w.bucket_ns,
                        g.end_ns // w.bucket_ns + 1)) AS bucket
    FROM context_gaps AS g, gap_bucket_width AS w
), short_ranges AS (
    SELECT g.gap_no, g.start_ns AS gap_start, g.end_ns AS gap_end, h.*
    FROM host_activities AS h, gap_bucket_width AS w, gap_buckets AS g
    WHERE h.duration_ns <= w.bucket_ns
      AND h.start_ns // w.bucket_ns = g.bucket
      AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns
), long_ranges AS (
    SELECT g.gap_no, g.start_ns AS gap_start, g.end_ns AS gap_end, h.*
    FROM host_activities AS h, gap_bucket_width AS w, context_gaps AS g
    WHERE h.duration_ns > w.bucket_ns
      AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns
), ranges AS (
    SELECT * FROM short_ranges UNION ALL SELECT * FROM long_ranges
)
SELECT * FROM ({overlapping});

{tables};

-- The innermost CPU op enclosing each top call on its thread. An enclosing op no longer
-- than a bucket starts in the call's bucket or the one before; the longer ones take the
-- range join (a join on the thread alone would compare each call with all its thread's
-- ops).
CREATE OR REPLACE TEMP TABLE gap_call_parents AS
WITH call_buckets AS (
    SELECT d.*, unnest([d.call_start_ns // w.bucket_ns - 1, d.call_start_ns // w.bucket_ns])
               AS bucket
    FROM gap_top_calls AS d, gap_bucket_width AS w
), parents AS (
    SELECT d.gap_no, o.name, o.depth
    FROM call_buckets AS d, gap_bucket_width AS w, host_activities AS o
    WHERE o.kind = 'cpu_op' AND o.duration_ns <= w.bucket_ns
      AND o.start_ns // w.bucket_ns = d.bucket
      AND o.pid = d.pid AND o.tid = d.tid
      AND o.start_ns <= d.call_start_ns AND o.end_ns >= d.call_end_ns
    UNION ALL
    SELECT d.gap_no, o.name, o.depth
    FROM gap_top_calls AS d, gap_bucket_width AS w, host_activities AS o
    WHERE o.kind = 'cpu_op' AND o.duration_ns > w.bucket_ns
      AND o.pid = d.pid AND o.tid = d.tid
      AND o.start_ns <= d.call_start_ns AND o.end_ns >= d.call_end_ns
)
SELECT gap_no, arg_max(name, depth) AS call_parent
FROM parents
GROUP BY gap_no;
