-- Params: $pid, $tid
-- Needs: schema
-- The name of thread ($pid, $tid), where the trace gives one. Columns: thread_name.
SELECT thread_name FROM threads WHERE pid = $pid AND tid = $tid AND thread_name IS NOT NULL
LIMIT 1;
