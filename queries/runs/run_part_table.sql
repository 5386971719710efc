-- Params: $device, $pid, {schema}
-- Needs: none
-- The process and GPU that one rank of a multi-process report is (run_part_views.sql
-- filters the report's tables by it).
CREATE TABLE {schema}.part AS SELECT $pid::BIGINT AS pid, $device::INTEGER AS device;
