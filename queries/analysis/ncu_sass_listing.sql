-- Params: $launch_id
-- Needs: table ncu_sass, table ncu_sass_metrics, table ncu_sass_stalls, table ncu_sass_waits
-- One launch's SASS in address order, each instruction with its counts, its biggest stall
-- reason (issuing, 'selected', is not a stall) and the load it waits on most, if any, with
-- the samples of that wait.
-- Parameters: $launch_id.
-- Columns: address, function, file, line, instruction, inst_executed,
--          thread_inst_executed, stall_samples, stall_samples_not_issued, top_stall,
--          top_stall_samples, waits_on, wait_samples, global_requests, global_sectors,
--          global_sectors_ideal, global_inst_executed, shared_conflict_ways,
--          shared_wavefronts, shared_wavefronts_ideal.
WITH stalls AS (
    SELECT address, arg_max(reason, samples) AS top_stall, max(samples) AS top_stall_samples
    FROM ncu_sass_stalls
    WHERE launch_id = $launch_id AND reason <> 'selected' AND samples > 0
    GROUP BY address
), waits AS (
    SELECT address, arg_max(producer, samples) AS waits_on, max(samples) AS wait_samples
    FROM ncu_sass_waits
    WHERE launch_id = $launch_id
    GROUP BY address
), memory AS (
    SELECT address,
           sum(value) FILTER (WHERE metric = 'memory_l1_tag_requests_global') AS global_requests,
           sum(value) FILTER (WHERE metric = 'memory_l2_theoretical_sectors_global') AS global_sectors,
           sum(value) FILTER (WHERE metric = 'memory_l2_theoretical_sectors_global_ideal') AS global_sectors_ideal,
           max(value) FILTER (WHERE metric = 'derived__memory_l1_conflicts_shared_nway') AS shared_conflict_ways,
           sum(value) FILTER (WHERE metric = 'memory_l1_wavefronts_shared') AS shared_wavefronts,
           sum(value) FILTER (WHERE metric = 'memory_l1_wavefronts_shared_ideal') AS shared_wavefronts_ideal
    FROM ncu_sass_metrics
    WHERE launch_id = $launch_id
    GROUP BY address
)
SELECT s.address, s.function, s.file, s.line, s.instruction, s.inst_executed,
       s.thread_inst_executed, s.stall_samples, s.stall_samples_not_issued,
       st.top_stall, st.top_stall_samples, w.waits_on, w.wait_samples,
       m.global_requests, m.global_sectors, m.global_sectors_ideal,
       CASE WHEN m.global_sectors IS NOT NULL THEN s.inst_executed END AS global_inst_executed,
       m.shared_conflict_ways, m.shared_wavefronts, m.shared_wavefronts_ideal
FROM ncu_sass AS s
LEFT JOIN stalls AS st USING (address)
LEFT JOIN waits AS w USING (address)
LEFT JOIN memory AS m USING (address)
WHERE s.launch_id = $launch_id
ORDER BY s.address;
