-- Params: $device, $prefer, $stream, $t, $t_hi, $t_lo
-- Needs: schema
-- The GPU activity under the timeline cursor on one (device, stream) lane: $prefer if it
-- is in the cursor's column (the one selected), else the one running at $t if any, else
-- the one with the largest piece of the column.
-- Given:  $device, $stream, $t (cursor time), $t_lo, $t_hi (the cursor's column),
--          $prefer (gpu_activities.id or NULL)
-- Columns: id
SELECT id
FROM gpu_activities
WHERE device = $device AND stream = $stream AND start_ns < $t_hi AND end_ns >= $t_lo
ORDER BY coalesce(id = $prefer, false) DESC, (start_ns <= $t AND end_ns > $t) DESC,
         least(end_ns, $t_hi) - greatest(start_ns, $t_lo) DESC, start_ns
LIMIT 1
