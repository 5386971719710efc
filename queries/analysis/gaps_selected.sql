-- Params: $context_gaps, $device, $limit, $min_gap_ns, $start_ns
-- Needs: schema
-- The gaps explained_gaps() explains, into the temp table selected_gaps: GPU-idle gaps
-- longer than $min_gap_ns (strictly, as `nsys analyze -r gpu_gaps`), longest first and
-- numbered so (gap_no), with the names of the activities before and after each; $device
-- and $start_ns, when not NULL, pick one gap. with_context marks the $context_gaps
-- longest, whose host activity gap_overlaps.sql looks up.
CREATE OR REPLACE TEMP TABLE selected_gaps AS
SELECT *, gap_no < $context_gaps AS with_context
FROM (
    SELECT
        row_number() OVER (ORDER BY g.duration_ns DESC, g.start_ns, g.device) - 1 AS gap_no,
        g.device, g.start_ns, g.end_ns, g.duration_ns,
        b.name AS before_name,
        a.name AS after_name,
        a.correlation AS after_correlation,
        a.kind AS after_kind
    FROM gpu_idle AS g
    LEFT JOIN gpu_activities AS b ON b.id = g.before_id
    LEFT JOIN gpu_activities AS a ON a.id = g.after_id
    WHERE g.duration_ns > $min_gap_ns
      AND ($device IS NULL OR g.device = $device)
      AND ($start_ns IS NULL OR g.start_ns = $start_ns)
    ORDER BY gap_no
    LIMIT $limit
);
