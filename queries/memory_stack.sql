-- The Python frames open on its thread when a memory event happened, innermost first.
-- Params: $pid, $tid, $t. Columns: id, name, user_code, depth
SELECT id, name, user_code, depth
FROM python_frames
WHERE pid = $pid AND tid = $tid AND start_ns <= $t AND end_ns > $t
ORDER BY depth DESC, start_ns DESC;
