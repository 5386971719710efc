-- Params: $launch_id
-- Needs: table ncu_sass, table ncu_sass_stalls
-- One launch's warp samples by stall reason per CUDA line (NULL file and line: the
-- instructions without line information), biggest first within a line.
-- Parameters: $launch_id.
-- Columns: file, line, reason, samples, samples_not_issued.
SELECT s.file, s.line, st.reason,
       sum(st.samples) AS samples, sum(st.samples_not_issued) AS samples_not_issued
FROM ncu_sass_stalls AS st
JOIN ncu_sass AS s ON s.launch_id = st.launch_id AND s.address = st.address
WHERE st.launch_id = $launch_id
GROUP BY s.file, s.line, st.reason
ORDER BY s.file NULLS FIRST, s.line NULLS FIRST, samples DESC, st.reason;
