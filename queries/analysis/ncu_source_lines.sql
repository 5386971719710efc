-- Params: $launch_id
-- Needs: table ncu_sass, table ncu_sass_lines, table ncu_sass_metrics, table ncu_source_text
-- One launch's CUDA source lines that have SASS, each line's instructions summed: the
-- numbers of Nsight Compute's Source page in its CUDA view. Memory traffic comes from
-- the per-instruction metrics: the L1 tag requests and L2 sectors of the line's global
-- instructions (ideal: what fully coalesced accesses would need) and the warp-level
-- executions of those instructions (a "request" in ncu's sectors-per-request), the
-- shared-memory bank conflicts as the largest n-way conflict among the line's shared
-- instructions and as ncu's column, the sum of those n-ways. An instruction counts under
-- every line its line table gives (ncu_sass_lines): code inlined from a header under the
-- header's line and, where the table says so, under its call site too.
-- Parameters: $launch_id.
-- Columns: file, line, text, instructions, inst_executed, thread_inst_executed,
--          stall_samples, stall_samples_not_issued, global_requests, global_sectors,
--          global_sectors_ideal, global_inst_executed, shared_conflict_ways,
--          shared_conflicts_nway_sum, shared_wavefronts, shared_wavefronts_ideal,
--          divergent_branches.
WITH per_instruction AS (
    SELECT address,
           sum(value) FILTER (WHERE metric = 'memory_l1_tag_requests_global') AS global_requests,
           sum(value) FILTER (WHERE metric = 'memory_l2_theoretical_sectors_global') AS global_sectors,
           sum(value) FILTER (WHERE metric = 'memory_l2_theoretical_sectors_global_ideal') AS global_sectors_ideal,
           max(value) FILTER (WHERE metric = 'derived__memory_l1_conflicts_shared_nway') AS shared_conflict_ways,
           sum(value) FILTER (WHERE metric = 'memory_l1_wavefronts_shared') AS shared_wavefronts,
           sum(value) FILTER (WHERE metric = 'memory_l1_wavefronts_shared_ideal') AS shared_wavefronts_ideal,
           sum(value) FILTER (WHERE metric = 'smsp__branch_targets_threads_divergent') AS divergent_branches
    FROM ncu_sass_metrics
    WHERE launch_id = $launch_id
    GROUP BY address
)
SELECT l.file, l.line, any_value(t.text) AS text, count(*) AS instructions,
       sum(s.inst_executed) AS inst_executed,
       sum(s.thread_inst_executed) AS thread_inst_executed,
       sum(s.stall_samples) AS stall_samples,
       sum(s.stall_samples_not_issued) AS stall_samples_not_issued,
       sum(m.global_requests) AS global_requests,
       sum(m.global_sectors) AS global_sectors,
       sum(m.global_sectors_ideal) AS global_sectors_ideal,
       sum(s.inst_executed) FILTER (WHERE m.global_sectors IS NOT NULL) AS global_inst_executed,
       max(m.shared_conflict_ways) FILTER (WHERE m.shared_conflict_ways > 0) AS shared_conflict_ways,
       sum(m.shared_conflict_ways) AS shared_conflicts_nway_sum,
       sum(m.shared_wavefronts) AS shared_wavefronts,
       sum(m.shared_wavefronts_ideal) AS shared_wavefronts_ideal,
       sum(m.divergent_branches) AS divergent_branches
FROM ncu_sass AS s
JOIN ncu_sass_lines AS l ON l.launch_id = s.launch_id AND l.address = s.address
LEFT JOIN per_instruction AS m ON m.address = s.address
LEFT JOIN ncu_source_text AS t ON t.file = l.file AND t.line = l.line
WHERE s.launch_id = $launch_id AND l.line IS NOT NULL
GROUP BY l.file, l.line
ORDER BY l.file, l.line;
