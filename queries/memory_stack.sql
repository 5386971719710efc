-- The Python frames open on its thread when a memory event happened, innermost first.
-- None where NVTX ranges stand in for frames. Params: $pid, $tid, $t.
-- Columns: id, name, user_code, depth
SELECT id, name, user_code, depth
FROM python_frames
WHERE pid = $pid AND tid = $tid AND start_ns <= $t AND end_ns > $t
  AND (SELECT value FROM trace_meta WHERE key = 'code_source') = 'python'
ORDER BY depth DESC, start_ns DESC;
