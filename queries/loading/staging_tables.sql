-- Params: none
-- Needs: schema
-- Temporary tables each loader fills in whatever order its source has; finalize_activities.sql
-- then writes them into gpu_activities / host_activities sorted by time, with row ids.
CREATE OR REPLACE TEMP TABLE staged_gpu AS
SELECT * EXCLUDE (id) FROM gpu_activities LIMIT 0;

-- staged_host also carries a Python frame's own ids ("Python id", "Python parent id":
-- Kineto's frames have them), which finalize writes out beside the rows
-- (finalize_python_ids.sql).
CREATE OR REPLACE TEMP TABLE staged_host AS
SELECT * EXCLUDE (id), NULL::BIGINT AS python_id, NULL::BIGINT AS python_parent_id
FROM host_activities LIMIT 0;
