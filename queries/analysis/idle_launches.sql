-- Params: $back_to_back_ns
-- Needs: temp table idle_gaps
-- The launching threads of the intervals in idle_gaps (idle_gaps.sql): their runtime calls
-- that launched GPU work, each with the thread's launch before it, into the temp table
-- idle_launches, from $back_to_back_ns before the first interval's launch (an earlier one
-- is no interval's previous launch within that; one interval, as the timeline asks for,
-- reads a few rows, not the thread's history).
-- Columns: pid, tid, start_ns, previous_ns.
CREATE OR REPLACE TEMP TABLE idle_launches AS
WITH threads AS (
    SELECT DISTINCT pid, tid FROM idle_gaps WHERE tid IS NOT NULL
), since AS (
    SELECT min(launch_ns) - $back_to_back_ns AS since_ns FROM idle_gaps
)
SELECT pid, tid, start_ns,
       lag(start_ns) OVER (PARTITION BY pid, tid ORDER BY start_ns) AS previous_ns
FROM (SELECT DISTINCT h.pid, h.tid, h.start_ns
      FROM host_activities AS h
      SEMI JOIN threads AS t ON h.pid = t.pid AND h.tid = t.tid
      SEMI JOIN gpu_activities AS a ON a.correlation = h.correlation
      WHERE h.kind = 'runtime' AND h.start_ns >= (SELECT since_ns FROM since));
