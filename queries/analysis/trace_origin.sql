-- Params: none
-- Needs: schema
-- The time shown as +0 everywhere (the app's timeline and tables, --summary's offsets):
-- the first GPU activity, else the first host activity. Columns: origin_ns.
SELECT coalesce((SELECT min(start_ns) FROM gpu_activities),
                (SELECT min(start_ns) FROM host_activities)) AS origin_ns
