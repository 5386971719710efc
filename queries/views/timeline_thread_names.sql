-- Params: none
-- Needs: schema
-- The names the timeline gives host lanes: each named thread, its process's name.
-- Columns: pid, tid, process_name, thread_name
SELECT pid, tid, process_name, thread_name FROM threads
