-- Host activity overlapping each gap of `context_gaps` (gap_no, device, start_ns, end_ns:
-- the longest gaps), into temp tables read by gap_host_context.sql.
-- Kept as plain two-sided range joins on their own: inside one big query DuckDB picks a
-- merge join that costs seconds on 100k+ gaps, where these take milliseconds.
CREATE OR REPLACE TEMP TABLE gap_calls AS
SELECT g.gap_no, h.id, h.pid, h.tid, h.start_ns, h.end_ns, h.name,
       least(h.end_ns, g.end_ns) - greatest(h.start_ns, g.start_ns) AS overlap_ns
FROM context_gaps AS g
JOIN host_activities AS h
  ON h.kind = 'runtime' AND h.start_ns < g.end_ns AND h.end_ns > g.start_ns;

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
