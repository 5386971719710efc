-- Params: $back_to_back_ns, $collective_pattern, $copy_pattern, $launch_ns, $reaction_ns, $staging_pattern, $sync_pattern
-- Needs: temp table idle_gaps, temp table idle_launches
-- The cause of every interval in the temp table idle_gaps (idle_gaps.sql: the intervals
-- asked about, with the launch of the work ending each; idle_launches.sql: the launching
-- threads' launches, each with the one before), into the temp table idle_causes.
-- "The next work" is the activity ending the interval; its launch is the runtime call with
-- its correlation id, on some host thread. The first rule that holds, in order:
--   copy           the call issuing the host-to-device copy that ends the interval was
--                  still running when the GPU ran dry (the host was staging it: pageable
--                  memory), or the thread was in a transfer op ($staging_pattern) then;
--                  or the thread was blocked in a copy call that returned as a
--                  host-to-device copy ended, and issued the next work within $reaction_ns
--   communication  the thread was in a collective ($collective_pattern) as the GPU ran dry,
--                  and issued the next work within $reaction_ns of its end
--   sync           the thread was blocked in a synchronising ($sync_pattern) or copy call as
--                  the GPU ran dry, and issued the next work within $reaction_ns of its
--                  return; or the interval follows a device-to-host copy and the next work
--                  was issued late but within $reaction_ns (the host read a result)
--   launch         the next work was issued after the GPU ran dry, within $back_to_back_ns
--                  of the thread's previous launch (back-to-back launches: the issue rate);
--                  or it was already queued and the interval is at most $launch_ns
--   host           the next work was issued after the GPU ran dry, the thread's previous
--                  launch longer ago than that, or long after a wait returned (the host
--                  busy with other work)
--   other          the rest: the next work was queued yet the GPU waited (another stream,
--                  an event), or no host call is linked to it
-- The waits and transfer ops are few: the as-of joins run from them to the intervals.
-- Columns of idle_causes: device, start_ns, duration_ns, cause, blocked_in (the call
-- waited in, for sync/copy/communication), issue_gap_ns (the next launch less the
-- thread's previous launch).
CREATE OR REPLACE TEMP TABLE idle_causes AS
WITH gaps AS (
    SELECT g.*, l.previous_ns
    FROM idle_gaps AS g
    LEFT JOIN idle_launches AS l
      ON l.pid = g.pid AND l.tid = g.tid AND l.start_ns = g.launch_ns
), threads AS (
    SELECT DISTINCT pid, tid FROM idle_gaps WHERE tid IS NOT NULL
), since AS (
    -- a call ending before this lasts into no interval
    SELECT min(start_ns) AS since_ns FROM idle_gaps
), thread_calls AS (
    -- the launching threads' calls and ops that may hold an interval up: few of them
    SELECT h.kind, h.pid, h.tid, h.start_ns, h.end_ns, h.name
    FROM host_activities AS h
    SEMI JOIN threads AS t ON h.pid = t.pid AND h.tid = t.tid
    WHERE h.end_ns >= (SELECT since_ns FROM since)
      -- substrings first: cheap, they leave the patterns few names to match
      AND ((h.kind = 'runtime'
            AND (contains(h.name, 'ynchronize') OR contains(h.name, 'Query')
                 OR contains(h.name, 'emcpy'))
            AND (regexp_matches(h.name, $sync_pattern)
                 OR regexp_matches(h.name, $copy_pattern)))
           -- every name either pattern matches holds one of these, in any case: DuckDB
           -- matches them once per distinct name of a dictionary-compressed column (a
           -- regexp: once per row, of a 3 GB trace's 5.7M CPU ops), and ILIKE even in
           -- memory more cheaply than a regexp
           OR (h.kind = 'cpu_op'
               AND (h.name ILIKE '%nccl%' OR h.name ILIKE '%gloo%' OR h.name ILIKE '%c10d%'
                    OR h.name ILIKE '%processgroup%' OR h.name ILIKE '%record_param_comms%'
                    OR h.name ILIKE '%distributed.%' OR h.name ILIKE '%barrier%'
                    OR h.name ILIKE '%h2d %' OR h.name ILIKE '%host%')
               AND (regexp_matches(h.name, $collective_pattern)
                    OR regexp_matches(h.name, $staging_pattern))))
), blocking AS (
    -- calls that hold the thread until the GPU (or other ranks) are done
    SELECT pid, tid, start_ns, end_ns, name,
           CASE WHEN kind = 'cpu_op' THEN 'communication'
                WHEN regexp_matches(name, $sync_pattern) THEN 'sync'
                ELSE 'copy' END AS what
    FROM thread_calls
    WHERE kind = 'runtime' OR regexp_matches(name, $collective_pattern)
), staged AS (
    -- intervals ended by a host-to-device copy whose thread was in a transfer op
    -- ($staging_pattern: XLA's H2D dispatch, which lays the host buffer out for the
    -- device before it issues the copy) as the GPU ran dry
    SELECT DISTINCT g.device, g.start_ns
    FROM (SELECT * FROM thread_calls
          WHERE kind = 'cpu_op' AND regexp_matches(name, $staging_pattern)) AS s
    ASOF JOIN (SELECT * FROM gaps WHERE after_copy = 'HtoD') AS g
      ON g.pid = s.pid AND g.tid = s.tid AND s.start_ns <= g.start_ns
    WHERE s.end_ns > g.start_ns
), next_launch AS (
    -- each blocking call's first launch after it returned, where that came within
    -- $reaction_ns: the earliest of its thread's launches (idle_launches.sql) in that
    -- time, found through the two time buckets $reaction_ns wide that hold it (an equal
    -- join from the few calls; an as-of join sorted every launch and ran out of a
    -- summary's memory on 5M of them)
    SELECT b.pid, b.tid, b.start_ns, b.end_ns, b.what, b.name, min(l.start_ns) AS launch_ns
    FROM (SELECT *, unnest([end_ns // $reaction_ns, end_ns // $reaction_ns + 1]) AS bucket
          FROM blocking) AS b
    JOIN idle_launches AS l
      ON l.pid = b.pid AND l.tid = b.tid AND l.start_ns // $reaction_ns = b.bucket
    WHERE l.start_ns >= b.end_ns AND l.start_ns - b.end_ns <= $reaction_ns
    GROUP BY b.pid, b.tid, b.start_ns, b.end_ns, b.what, b.name
), waited AS (
    -- a blocking call holds up the interval its next launch ends if it was running as
    -- the GPU ran dry (that launch came first thing after it: no launch between)
    SELECT g.device, g.start_ns, arg_max(b.what, b.start_ns) AS blocked_what,
           arg_max(b.name, b.start_ns) AS blocked_name
    FROM next_launch AS b
    JOIN gaps AS g ON g.pid = b.pid AND g.tid = b.tid AND g.launch_ns = b.launch_ns
    WHERE b.start_ns <= g.start_ns AND b.end_ns > g.start_ns
    GROUP BY g.device, g.start_ns
), marked AS (
    SELECT g.*, w.blocked_what, w.blocked_name, w.blocked_what IS NOT NULL AS blocked,
           s.start_ns IS NOT NULL AS in_staging,
           g.launch_ns - g.previous_ns AS issue_gap_ns,
           coalesce(g.launch_ns > g.start_ns, false) AS late  -- issued after the GPU ran dry
    FROM gaps AS g
    LEFT JOIN waited AS w USING (device, start_ns)
    LEFT JOIN staged AS s USING (device, start_ns)
)
SELECT device, start_ns, duration_ns,
       CASE
           WHEN after_copy = 'HtoD' AND launch_ns <= start_ns
                AND launch_end_ns > start_ns THEN 'copy'
           WHEN in_staging THEN 'copy'
           WHEN blocked AND blocked_what = 'copy' AND before_copy = 'HtoD' THEN 'copy'
           WHEN blocked AND blocked_what = 'communication' THEN 'communication'
           WHEN blocked THEN 'sync'
           WHEN late AND before_copy = 'DtoH' AND launch_ns - start_ns <= $reaction_ns
                THEN 'sync'
           WHEN late AND issue_gap_ns <= $back_to_back_ns THEN 'launch'
           WHEN late THEN 'host'
           WHEN duration_ns <= $launch_ns THEN 'launch'
           ELSE 'other'
       END AS cause,
       CASE WHEN blocked THEN blocked_name END AS blocked_in,
       issue_gap_ns
FROM marked;
