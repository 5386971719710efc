-- Host activity overlapping each gap of `context_gaps` (gap_no, device, start_ns, end_ns:
-- the longest gaps), into temp tables read by gap_host_context.sql.
-- Kept as plain two-sided range joins on their own: inside one big query DuckDB picks a
-- merge join that costs seconds on 100k+ gaps, where these take milliseconds.
-- API calls are the most numerous host rows (10M+ in a big nsys export), and even an
-- IEJoin of them against the gaps takes seconds. Almost every call is far shorter than a
-- time bucket (at least 1 ms, wider when the gaps are long, so that they span at most
-- ~1M buckets): such a call can only overlap a gap if it starts in a bucket from the one
-- a bucket before the gap to the one the gap ends in, an equality join. The few longer
-- calls take the range join. `//` truncates towards zero, but it never decreases, which
-- is all the bucket range needs.
CREATE OR REPLACE TEMP TABLE gap_calls AS
WITH width AS (
    SELECT CAST(least(greatest(1000000, coalesce(sum(end_ns - start_ns), 0) // 1000000),
                      4611686018427387903) AS BIGINT) AS bucket_ns
    FROM context_gaps
), gap_buckets AS (
    SELECT g.gap_no, g.start_ns, g.end_ns,
           unnest(range((g.start_ns - w.bucket_ns) // w.bucket_ns,
                        g.end_ns // w.bucket_ns + 1)) AS bucket
    FROM context_gaps AS g, width AS w
), short_calls AS (
    SELECT g.gap_no, g.start_ns AS gap_start, g.end_ns AS gap_end, h.*
    FROM host_activities AS h, width AS w, gap_buckets AS g
    WHERE h.kind = 'runtime' AND h.duration_ns <= w.bucket_ns
      AND h.start_ns // w.bucket_ns = g.bucket
      AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns
), long_calls AS (
    SELECT g.gap_no, g.start_ns AS gap_start, g.end_ns AS gap_end, h.*
    FROM host_activities AS h, width AS w, context_gaps AS g
    WHERE h.kind = 'runtime' AND h.duration_ns > w.bucket_ns
      AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns
)
SELECT gap_no, id, pid, tid, start_ns, end_ns, name,
       least(end_ns, gap_end) - greatest(start_ns, gap_start) AS overlap_ns
FROM (SELECT * FROM short_calls UNION ALL SELECT * FROM long_calls);

CREATE OR REPLACE TEMP TABLE gap_ranges AS
SELECT g.gap_no, h.kind, h.name, h.depth,
       least(h.end_ns, g.end_ns) - greatest(h.start_ns, g.start_ns) AS overlap_ns,
       g.end_ns - g.start_ns AS gap_ns
FROM context_gaps AS g
JOIN host_activities AS h
  ON h.kind IN ('annotation', 'cpu_op') AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns;

-- The longest-overlapping call of each gap, and the CPU ops enclosing it in time. The
-- join has no pid/tid equality on purpose: with one, DuckDB hash-joins on the thread and
-- compares every call with every op of that thread, while a pure range join is an IEJoin.
CREATE OR REPLACE TEMP TABLE gap_top_calls AS
SELECT t.gap_no, t.call_overlap_ns, c.name AS call_name, c.pid, c.tid,
       c.start_ns AS call_start_ns, c.end_ns AS call_end_ns
FROM (
    SELECT gap_no, arg_max(id, overlap_ns) AS call_id, max(overlap_ns) AS call_overlap_ns
    FROM gap_calls GROUP BY gap_no
) AS t
JOIN host_activities AS c ON c.id = t.call_id;

CREATE OR REPLACE TEMP TABLE gap_call_parents AS
SELECT d.gap_no, arg_max(o.name, o.depth) AS call_parent
FROM gap_top_calls AS d
JOIN host_activities AS o
  ON o.start_ns <= d.call_start_ns AND o.end_ns >= d.call_end_ns
WHERE o.kind = 'cpu_op' AND o.pid = d.pid AND o.tid = d.tid
GROUP BY d.gap_no;
