-- Params: $device, $forward, $stream, $t
-- Needs: schema
-- The next (or previous) GPU activity on one (device, stream) lane from a time.
-- Given:  $device, $stream, $t, $forward (bool: first starting after $t, else last
--          starting before it)
-- Columns: id, start_ns, end_ns
SELECT id, start_ns, end_ns
FROM gpu_activities
WHERE device = $device AND stream = $stream
  AND CASE WHEN $forward THEN start_ns > $t ELSE start_ns < $t END
ORDER BY CASE WHEN $forward THEN start_ns ELSE -start_ns END
LIMIT 1
