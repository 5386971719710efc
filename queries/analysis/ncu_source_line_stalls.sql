-- Params: $launch_id
-- Needs: table ncu_sass, table ncu_sass_lines, table ncu_sass_stalls
-- One launch's warp samples by stall reason per CUDA line (every line an instruction's
-- line table gives it, ncu_sass_lines; NULL file and line: the instructions without line
-- information), biggest first within a line.
-- Parameters: $launch_id.
-- Columns: file, line, reason, samples, samples_not_issued.
WITH located AS (
    SELECT address, file, line
    FROM ncu_sass_lines
    WHERE launch_id = $launch_id
    UNION ALL
    -- the instructions the line table does not cover: one row without a line
    SELECT s.address, NULL, NULL
    FROM ncu_sass AS s
    WHERE s.launch_id = $launch_id AND NOT EXISTS (
        SELECT 1 FROM ncu_sass_lines AS l
        WHERE l.launch_id = s.launch_id AND l.address = s.address)
)
SELECT x.file, x.line, st.reason,
       sum(st.samples) AS samples, sum(st.samples_not_issued) AS samples_not_issued
FROM ncu_sass_stalls AS st
JOIN located AS x ON x.address = st.address
WHERE st.launch_id = $launch_id
GROUP BY x.file, x.line, st.reason
ORDER BY x.file NULLS FIRST, x.line NULLS FIRST, samples DESC, st.reason;
