-- Params: none
-- Needs: schema
-- How many ids the GPU activities span (ids are 0, 1, ...), for queries taken a part of
-- the ids at a time (stacks_points_launches.sql,
-- code_unattributed.sql, dist_work_first.sql, dist_work_part.sql, dist_owner_counts_part.sql:
-- db.gpu_id_parts).
SELECT coalesce(max(id) + 1, 0) FROM gpu_activities;
