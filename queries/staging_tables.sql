-- Temporary tables each loader fills in whatever order its source has; finalize_activities.sql
-- then writes them into gpu_activities / host_activities sorted by time, with row ids.
CREATE OR REPLACE TEMP TABLE staged_gpu AS
SELECT * EXCLUDE (id) FROM gpu_activities LIMIT 0;

CREATE OR REPLACE TEMP TABLE staged_host AS
SELECT * EXCLUDE (id) FROM host_activities LIMIT 0;
