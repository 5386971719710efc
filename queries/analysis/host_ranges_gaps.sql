-- Params: $min_gap_ns
-- Needs: schema
-- The GPU-idle gaps longer than $min_gap_ns (the summary's gaps: strictly longer, as
-- gaps_selected.sql), of every device, into the temp table host_ranges_raw (start_ns,
-- end_ns), to be merged by host_ranges_merge.sql.
CREATE OR REPLACE TEMP TABLE host_ranges_raw AS
SELECT start_ns, end_ns FROM gpu_idle WHERE duration_ns > $min_gap_ns;
