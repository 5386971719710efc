-- The cause of every GPU-idle interval (gpu_idle) longer than $min_ns (-1: all), or of the
-- one at ($device, $start_ns) when those are not NULL, into the temp table idle_causes.
-- "The next work" is the activity ending the interval; its launch is the runtime call with
-- its correlation id, on some host thread. The first rule that holds, in order:
--   copy           the call issuing the host-to-device copy that ends the interval was
--                  still running when the GPU ran dry (the host was staging it: pageable
--                  memory); or the thread was blocked in a copy call that returned as a
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
-- The waits and previous launches are as-of joins on the launching thread.
-- Columns of idle_causes: device, start_ns, duration_ns, cause, blocked_in (the call
-- waited in, for sync/copy/communication), issue_gap_ns (the next launch less the
-- thread's previous launch).
CREATE OR REPLACE TEMP TABLE idle_causes AS
WITH calls AS (
    -- every runtime call linked to GPU work: the launch of each activity
    SELECT correlation, min(start_ns) AS start_ns, arg_min(end_ns, start_ns) AS end_ns,
           arg_min(pid, start_ns) AS pid, arg_min(tid, start_ns) AS tid
    FROM host_activities
    WHERE kind = 'runtime' AND correlation IS NOT NULL
    GROUP BY correlation
), launch_calls AS (
    SELECT c.pid, c.tid, c.start_ns
    FROM calls AS c SEMI JOIN gpu_activities AS a ON a.correlation = c.correlation
), gaps AS (
    SELECT g.device, g.start_ns, g.duration_ns,
           b.copy_kind AS before_copy, a.copy_kind AS after_copy,
           n.pid, n.tid, n.start_ns AS launch_ns, n.end_ns AS launch_end_ns
    FROM gpu_idle AS g
    LEFT JOIN gpu_activities AS b ON b.id = g.before_id
    LEFT JOIN gpu_activities AS a ON a.id = g.after_id
    LEFT JOIN calls AS n ON n.correlation = a.correlation
    WHERE g.duration_ns > $min_ns
      AND ($device IS NULL OR g.device = $device)
      AND ($start_ns IS NULL OR g.start_ns = $start_ns)
), blocking AS (
    -- host calls that hold their thread until the GPU (or other ranks) are done
    SELECT pid, tid, start_ns, end_ns, name,
           CASE WHEN kind = 'cpu_op' THEN 'communication'
                WHEN regexp_matches(name, $sync_pattern) THEN 'sync'
                ELSE 'copy' END AS what
    FROM host_activities
    WHERE (kind = 'runtime' AND (regexp_matches(name, $sync_pattern)
                                 OR regexp_matches(name, $copy_pattern)))
       OR (kind = 'cpu_op' AND regexp_matches(name, $collective_pattern))
), waited AS (
    SELECT g.*, w.what AS blocked_what, w.name AS blocked_name, w.end_ns AS blocked_end_ns
    FROM gaps AS g
    ASOF LEFT JOIN blocking AS w
      ON g.pid = w.pid AND g.tid = w.tid AND g.start_ns >= w.start_ns
), issued AS (
    SELECT g.*, g.launch_ns - p.start_ns AS issue_gap_ns
    FROM waited AS g
    ASOF LEFT JOIN launch_calls AS p
      ON g.pid = p.pid AND g.tid = p.tid AND g.launch_ns > p.start_ns
), marked AS (
    SELECT *,
           -- in a blocking call as the GPU ran dry, and issuing the next work soon after
           -- it returned (work queued before it is not held up by it)
           coalesce(blocked_end_ns > start_ns AND launch_ns >= blocked_end_ns
                    AND launch_ns - blocked_end_ns <= $reaction_ns, false) AS blocked,
           coalesce(launch_ns > start_ns, false) AS late  -- issued after the GPU ran dry
    FROM issued
)
SELECT device, start_ns, duration_ns,
       CASE
           WHEN after_copy = 'HtoD' AND launch_ns <= start_ns
                AND launch_end_ns > start_ns THEN 'copy'
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
