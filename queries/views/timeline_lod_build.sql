-- Params: {bins_query}
-- Needs: none
-- Level 0 of the level-of-detail summary: timeline_bins.sql over the whole trace at a
-- fixed fine width (its text is appended below this statement by tui/views/timeline/bins.py;
-- DuckDB cannot include one file in another). Rows are kept sorted by column so that
-- timeline_lod_bins.sql's column range skips row groups.
-- Given:  the values of timeline_bins.sql, whose text fills {bins_query}
CREATE OR REPLACE TABLE timeline_lod.bins AS
SELECT 0 AS level, lane_kind, k1, k2, k3, col, busy_ns, top_ns,
       {'id': top_id, 'name': top_name, 'kind': top_kind} AS top
FROM ({bins_query})
ORDER BY level, col
