-- Params: none
-- Needs: schema
-- The time range the timeline spans: GPU work (what "fit all" shows) and everything,
-- host activity included (how far one may pan), plus the row counts that decide
-- whether a level-of-detail summary is worth building.
-- Columns: gpu_start_ns, gpu_end_ns, all_start_ns, all_end_ns, gpu_rows, host_rows
WITH g AS (
    SELECT min(start_ns) AS s, max(end_ns) AS e, count(*) AS n FROM gpu_activities
), h AS (
    SELECT min(start_ns) AS s, max(end_ns) AS e, count(*) AS n FROM host_activities
)
SELECT g.s, g.e, least(g.s, h.s), greatest(g.e, h.e), g.n, h.n
FROM g, h
