-- One launch's SASS in address order, each instruction with its counts, its biggest stall
-- reason (issuing, 'selected', is not a stall) and the load it waits on most, if any.
-- Parameters: $launch_id.
-- Columns: address, function, file, line, instruction, inst_executed,
--          thread_inst_executed, stall_samples, stall_samples_not_issued, top_stall,
--          top_stall_samples, waits_on, global_requests, global_sectors,
--          shared_conflict_ways.
WITH stalls AS (
    SELECT address, arg_max(reason, samples) AS top_stall, max(samples) AS top_stall_samples
    FROM ncu_sass_stalls
    WHERE launch_id = $launch_id AND reason <> 'selected' AND samples > 0
    GROUP BY address
), waits AS (
    SELECT address, arg_max(producer, samples) AS waits_on
    FROM ncu_sass_waits
    WHERE launch_id = $launch_id
    GROUP BY address
), memory AS (
    SELECT address,
           sum(value) FILTER (WHERE metric = 'memory_l1_tag_requests_global') AS global_requests,
           sum(value) FILTER (WHERE metric = 'memory_l2_theoretical_sectors_global') AS global_sectors,
           max(value) FILTER (WHERE metric = 'derived__memory_l1_conflicts_shared_nway') AS shared_conflict_ways
    FROM ncu_sass_metrics
    WHERE launch_id = $launch_id
    GROUP BY address
)
SELECT s.address, s.function, s.file, s.line, s.instruction, s.inst_executed,
       s.thread_inst_executed, s.stall_samples, s.stall_samples_not_issued,
       st.top_stall, st.top_stall_samples, w.waits_on,
       m.global_requests, m.global_sectors, m.shared_conflict_ways
FROM ncu_sass AS s
LEFT JOIN stalls AS st USING (address)
LEFT JOIN waits AS w USING (address)
LEFT JOIN memory AS m USING (address)
WHERE s.launch_id = $launch_id
ORDER BY s.address;
