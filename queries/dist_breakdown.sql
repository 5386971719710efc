-- Temporal breakdown and communication/computation overlap over dist_work (dist_work.sql),
-- as Holistic Trace Analysis 0.5.0 defines them (breakdown_analysis.py
-- get_temporal_breakdown, communication_analysis.py get_comm_comp_overlap), per device and,
-- as HTA gives it, over all of a trace's devices at once (device -1).
-- kernel_ns: first start to last end of all the work; idle_ns: the part of it when none
-- runs; compute_ns: the union of compute kernels; non_compute_ns: the rest (communication,
-- copies, sets); comm_ns: the union of communication kernels; overlap_ns: the time both a
-- communication and a compute kernel run (|comm| + |compute| - |comm ∪ compute|).
-- With one device, that device's row is the whole trace's; with several, device -1 is.
-- Columns: device, kernel_ns, busy_ns, idle_ns, compute_ns, non_compute_ns, comm_ns,
--          overlap_ns, activities.
WITH scoped AS (  -- each activity for its device, and for the whole trace (scope -1)
    SELECT device AS scope, class, start_ns, end_ns FROM dist_work
    UNION ALL
    SELECT -1 AS scope, class, start_ns, end_ns FROM dist_work
    WHERE (SELECT count(DISTINCT device) FROM dist_work) > 1
), sets AS (  -- the interval sets whose unions are measured
    SELECT scope, 'all' AS part, start_ns, end_ns FROM scoped
    UNION ALL
    SELECT scope, class AS part, start_ns, end_ns FROM scoped WHERE class IN ('compute', 'comm')
    UNION ALL
    SELECT scope, 'comm+compute' AS part, start_ns, end_ns FROM scoped
    WHERE class IN ('compute', 'comm')
), covered AS (  -- each interval adds what it reaches past every earlier one's end
    SELECT scope, part, start_ns, end_ns,
           greatest(end_ns - greatest(start_ns, coalesce(max(end_ns) OVER (
               PARTITION BY scope, part ORDER BY start_ns, end_ns
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), start_ns)), 0) AS adds_ns
    FROM sets
), unions AS (
    SELECT scope, part, sum(adds_ns) AS union_ns, min(start_ns) AS first_ns,
           max(end_ns) AS last_ns
    FROM covered
    GROUP BY scope, part
), counts AS (
    SELECT scope, count(*) AS activities FROM scoped GROUP BY scope
), figures AS (
    SELECT scope,
           max(last_ns - first_ns) FILTER (WHERE part = 'all') AS kernel_ns,
           max(union_ns) FILTER (WHERE part = 'all') AS busy_ns,
           coalesce(max(union_ns) FILTER (WHERE part = 'compute'), 0) AS compute_ns,
           coalesce(max(union_ns) FILTER (WHERE part = 'comm'), 0) AS comm_ns,
           coalesce(max(union_ns) FILTER (WHERE part = 'comm+compute'), 0) AS either_ns
    FROM unions GROUP BY scope
)
SELECT p.scope AS device,
       p.kernel_ns::BIGINT AS kernel_ns,
       p.busy_ns::BIGINT AS busy_ns,
       (p.kernel_ns - p.busy_ns)::BIGINT AS idle_ns,
       p.compute_ns::BIGINT AS compute_ns,
       (p.busy_ns - p.compute_ns)::BIGINT AS non_compute_ns,
       p.comm_ns::BIGINT AS comm_ns,
       (p.comm_ns + p.compute_ns - p.either_ns)::BIGINT AS overlap_ns,
       c.activities
FROM figures AS p
JOIN counts AS c USING (scope)
ORDER BY p.scope;
