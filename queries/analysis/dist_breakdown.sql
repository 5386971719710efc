-- Params: none
-- Needs: temp table dist_work
-- Temporal breakdown and communication/computation overlap over dist_work (dist_work.sql),
-- as Holistic Trace Analysis 0.5.0 defines them (breakdown_analysis.py
-- get_temporal_breakdown, communication_analysis.py get_comm_comp_overlap), per device and,
-- as HTA gives it, over all of a trace's devices at once (device -1).
-- kernel_ns: first start to last end of all the work; idle_ns: the part of it when none
-- runs; compute_ns: the union of compute kernels; non_compute_ns: the rest (communication,
-- copies, sets); comm_ns: the union of communication kernels; overlap_ns: the time both a
-- communication and a compute kernel run (|comm| + |compute| - |comm ∪ compute|).
-- With one device, that device's row is the whole trace's; with several, device -1 is.
-- Each union is measured in one pass over the activities in order of start: an interval
-- adds what it reaches past the latest end of the set's earlier intervals.
-- Columns: device, kernel_ns, busy_ns, idle_ns, compute_ns, non_compute_ns, comm_ns,
--          overlap_ns, activities.
WITH scoped AS (  -- each activity for its device, and for the whole trace (scope -1)
    SELECT device AS scope, class, start_ns, end_ns FROM dist_work
    UNION ALL
    SELECT -1 AS scope, class, start_ns, end_ns FROM dist_work
    WHERE (SELECT count(DISTINCT device) FROM dist_work) > 1
), reach AS (  -- in one order by start: the latest end before each activity, of all the
               -- work, of the compute, of the communication, and of either
    SELECT scope, class, start_ns, end_ns,
           max(end_ns) OVER w AS all_ns,
           max(end_ns) FILTER (WHERE class = 'compute') OVER w AS compute_ns,
           max(end_ns) FILTER (WHERE class = 'comm') OVER w AS comm_ns,
           max(end_ns) FILTER (WHERE class IN ('compute', 'comm')) OVER w AS either_ns
    FROM scoped
    WINDOW w AS (PARTITION BY scope ORDER BY start_ns, end_ns
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
), figures AS (  -- each interval adds to a union what it reaches past every earlier end
    SELECT scope,
           max(end_ns) - min(start_ns) AS kernel_ns,
           sum(greatest(end_ns - greatest(start_ns, coalesce(all_ns, start_ns)), 0)) AS busy_ns,
           coalesce(sum(greatest(end_ns - greatest(start_ns, coalesce(compute_ns, start_ns)), 0))
                    FILTER (WHERE class = 'compute'), 0) AS compute_ns,
           coalesce(sum(greatest(end_ns - greatest(start_ns, coalesce(comm_ns, start_ns)), 0))
                    FILTER (WHERE class = 'comm'), 0) AS comm_ns,
           coalesce(sum(greatest(end_ns - greatest(start_ns, coalesce(either_ns, start_ns)), 0))
                    FILTER (WHERE class IN ('compute', 'comm')), 0) AS either_ns,
           count(*) AS activities
    FROM reach
    GROUP BY scope
)
SELECT scope AS device,
       kernel_ns::BIGINT AS kernel_ns,
       busy_ns::BIGINT AS busy_ns,
       (kernel_ns - busy_ns)::BIGINT AS idle_ns,
       compute_ns::BIGINT AS compute_ns,
       (busy_ns - compute_ns)::BIGINT AS non_compute_ns,
       comm_ns::BIGINT AS comm_ns,
       (comm_ns + compute_ns - either_ns)::BIGINT AS overlap_ns,
       activities
FROM figures
ORDER BY scope;
