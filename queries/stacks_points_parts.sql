-- How many ids the GPU activities span (ids are 0, 1, ...), for the parts of
-- stacks_points_launches.sql.
SELECT coalesce(max(id) + 1, 0) FROM gpu_activities;
