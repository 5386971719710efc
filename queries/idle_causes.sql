-- The cause of every GPU-idle interval (gpu_idle) longer than $min_ns (-1: all), or of the
-- one at ($device, $start_ns) when those are not NULL, into the temp table idle_causes.
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
-- The waits are found from the blocking calls (an as-of join to the launch after each),
-- the previous launch by a window over the thread's launches.
-- Columns of idle_causes: device, start_ns, duration_ns, cause, blocked_in (the call
-- waited in, for sync/copy/communication), issue_gap_ns (the next launch less the
-- thread's previous launch).
CREATE OR REPLACE TEMP TABLE idle_causes AS
WITH picked AS (
    SELECT g.device, g.start_ns, g.duration_ns, b.copy_kind AS before_copy,
           a.copy_kind AS after_copy, a.correlation
    FROM gpu_idle AS g
    LEFT JOIN gpu_activities AS b ON b.id = g.before_id
    LEFT JOIN gpu_activities AS a ON a.id = g.after_id
    WHERE g.duration_ns > $min_ns
      AND ($device IS NULL OR g.device = $device)
      AND ($start_ns IS NULL OR g.start_ns = $start_ns)
), launched AS (
    -- the runtime call that launched each interval's next work (of equals, the first);
    -- joined from the intervals, so that a few of them touch few calls
    SELECT p.device, p.start_ns, min(h.start_ns) AS launch_ns,
           arg_min(h.end_ns, h.start_ns) AS launch_end_ns,
           arg_min(h.pid, h.start_ns) AS pid, arg_min(h.tid, h.start_ns) AS tid
    FROM picked AS p
    JOIN host_activities AS h ON h.kind = 'runtime' AND h.correlation = p.correlation
    GROUP BY p.device, p.start_ns
), gaps AS (
    SELECT p.device, p.start_ns, p.duration_ns, p.before_copy, p.after_copy,
           l.pid, l.tid, l.launch_ns, l.launch_end_ns
    FROM picked AS p
    LEFT JOIN launched AS l USING (device, start_ns)
), threads AS (
    SELECT DISTINCT pid, tid FROM gaps WHERE tid IS NOT NULL
), since AS (
    -- no call ending before this decides anything: a previous launch counts within
    -- $back_to_back_ns, a wait only if it lasts into an interval (one interval, as the
    -- timeline asks for: a few rows, not the threads' whole history)
    SELECT least(min(start_ns), min(launch_ns)) - $back_to_back_ns AS since_ns FROM gaps
), thread_calls AS (
    -- the host rows of the launching threads
    SELECT h.kind, h.pid, h.tid, h.start_ns, h.end_ns, h.name, h.correlation
    FROM host_activities AS h
    SEMI JOIN threads AS t ON h.pid = t.pid AND h.tid = t.tid
    WHERE h.kind IN ('runtime', 'cpu_op') AND h.end_ns >= (SELECT since_ns FROM since)
), launch_calls AS (
    -- their runtime calls that launched GPU work, each with the thread's launch before
    SELECT pid, tid, start_ns,
           lag(start_ns) OVER (PARTITION BY pid, tid ORDER BY start_ns) AS previous_ns
    FROM (SELECT DISTINCT c.pid, c.tid, c.start_ns
          FROM thread_calls AS c
          SEMI JOIN gpu_activities AS a ON a.correlation = c.correlation
          WHERE c.kind = 'runtime')
), blocking AS (
    -- their calls that hold the thread until the GPU (or other ranks) are done
    SELECT pid, tid, start_ns, end_ns, name,
           CASE WHEN kind = 'cpu_op' THEN 'communication'
                WHEN regexp_matches(name, $sync_pattern) THEN 'sync'
                ELSE 'copy' END AS what
    FROM thread_calls
    -- substrings first: cheap, they leave the patterns few names to match
    WHERE (kind = 'runtime'
           AND (contains(name, 'ynchronize') OR contains(name, 'Query')
                OR contains(name, 'emcpy'))
           AND (regexp_matches(name, $sync_pattern) OR regexp_matches(name, $copy_pattern)))
       OR (kind = 'cpu_op' AND regexp_matches(name, $collective_pattern))
), staging AS (
    -- their host-to-device transfer ops ($staging_pattern: XLA's H2D dispatch, which
    -- copies the host buffer into the transfer's own layout before the copy is issued)
    SELECT pid, tid, start_ns, end_ns
    FROM thread_calls
    WHERE kind = 'cpu_op' AND regexp_matches(name, $staging_pattern)
), staged AS (
    -- intervals ended by a host-to-device copy whose thread was in such an op as the GPU
    -- ran dry
    SELECT g.device, g.start_ns
    FROM gaps AS g
    ASOF JOIN staging AS s ON g.pid = s.pid AND g.tid = s.tid AND g.start_ns >= s.start_ns
    WHERE g.after_copy = 'HtoD' AND s.end_ns > g.start_ns
), unblocked AS (
    -- the thread's first launch once each blocking call returned (few calls: the as-of
    -- join runs from them, not from the intervals)
    SELECT b.*, l.start_ns AS launch_ns
    FROM blocking AS b
    ASOF JOIN launch_calls AS l
      ON b.pid = l.pid AND b.tid = l.tid AND b.end_ns <= l.start_ns
), waited AS (
    -- intervals whose thread sat in a blocking call as the GPU ran dry and launched the
    -- next work first thing after it returned, within $reaction_ns
    SELECT g.device, g.start_ns, arg_max(u.what, u.start_ns) AS blocked_what,
           arg_max(u.name, u.start_ns) AS blocked_name
    FROM gaps AS g
    JOIN unblocked AS u
      ON u.pid = g.pid AND u.tid = g.tid AND u.launch_ns = g.launch_ns
    WHERE u.start_ns <= g.start_ns AND u.end_ns > g.start_ns
      AND g.launch_ns - u.end_ns <= $reaction_ns
    GROUP BY g.device, g.start_ns
), marked AS (
    SELECT g.*, w.blocked_what, w.blocked_name, w.blocked_what IS NOT NULL AS blocked,
           s.start_ns IS NOT NULL AS in_staging,
           g.launch_ns - l.previous_ns AS issue_gap_ns,
           coalesce(g.launch_ns > g.start_ns, false) AS late  -- issued after the GPU ran dry
    FROM gaps AS g
    LEFT JOIN waited AS w USING (device, start_ns)
    LEFT JOIN staged AS s USING (device, start_ns)
    LEFT JOIN launch_calls AS l
      ON l.pid = g.pid AND l.tid = g.tid AND l.start_ns = g.launch_ns
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
