-- Params: {schema}, {source}
-- Needs: table {schema}.part, table {source}.collectives, table {source}.devices, table {source}.gpu_activities, table {source}.gpu_idle, table {source}.host_activities, table {source}.host_callchains, table {source}.host_samples, table {source}.launches, table {source}.memory_events, table {source}.os_calls, table {source}.python_frames, table {source}.python_samples, table {source}.python_stacks, table {source}.threads, table {source}.trace_meta
-- One rank of a multi-process report (an nsys report of torchrun's processes): the
-- schema's tables of the attached report {source}, as views in {schema} holding only the
-- process and GPU in {schema}.part (run_part_table.sql): its GPU's work, idle time and
-- device; its process's host rows, CPU and Python samples, OS calls, frames, threads and memory
-- events (and those on its GPU); the launches of its GPU's work. trace_meta is the
-- report's.
CREATE VIEW {schema}.trace_meta AS FROM {source}.trace_meta;
CREATE VIEW {schema}.devices AS
    FROM {source}.devices WHERE device = (SELECT device FROM {schema}.part);
CREATE VIEW {schema}.gpu_activities AS
    FROM {source}.gpu_activities WHERE device = (SELECT device FROM {schema}.part);
CREATE VIEW {schema}.gpu_idle AS
    FROM {source}.gpu_idle WHERE device = (SELECT device FROM {schema}.part);
CREATE VIEW {schema}.host_activities AS
    FROM {source}.host_activities WHERE coalesce(pid = (SELECT pid FROM {schema}.part), true);
CREATE VIEW {schema}.host_samples AS  -- its CPU samples and OS calls: what its host did
    FROM {source}.host_samples WHERE coalesce(pid = (SELECT pid FROM {schema}.part), true);
CREATE VIEW {schema}.os_calls AS
    FROM {source}.os_calls WHERE coalesce(pid = (SELECT pid FROM {schema}.part), true);
CREATE VIEW {schema}.host_callchains AS FROM {source}.host_callchains;
CREATE VIEW {schema}.python_samples AS
    FROM {source}.python_samples WHERE coalesce(pid = (SELECT pid FROM {schema}.part), true);
CREATE VIEW {schema}.python_stacks AS FROM {source}.python_stacks;
CREATE VIEW {schema}.python_frames AS
    FROM {source}.python_frames WHERE coalesce(pid = (SELECT pid FROM {schema}.part), true);
CREATE VIEW {schema}.threads AS
    FROM {source}.threads WHERE coalesce(pid = (SELECT pid FROM {schema}.part), true);
CREATE VIEW {schema}.memory_events AS
    FROM {source}.memory_events
    WHERE pid = (SELECT pid FROM {schema}.part) OR device = (SELECT device FROM {schema}.part)
       OR ((SELECT pid FROM {schema}.part) IS NULL AND device IS NULL);
CREATE VIEW {schema}.launches AS
    FROM {source}.launches
    WHERE gpu_id IN (SELECT id FROM {source}.gpu_activities
                     WHERE device = (SELECT device FROM {schema}.part));
CREATE VIEW {schema}.collectives AS  -- a shared host's: those whose kernel ran on the GPU
    FROM {source}.collectives
    WHERE CASE WHEN (SELECT pid FROM {schema}.part) IS NULL
               THEN correlation IN (SELECT correlation FROM {source}.gpu_activities
                                    WHERE device = (SELECT device FROM {schema}.part))
               ELSE tid IN (SELECT tid FROM {source}.host_activities
                            WHERE pid = (SELECT pid FROM {schema}.part)) END;
