-- Params: $annotation, $depth, $kind, $pid, $prefer, $t, $t_hi, $t_lo, $tid
-- Needs: schema
-- The host interval under the timeline cursor on an annotation lane (one depth of one
-- thread's ranges), a host-thread lane (its outermost CPU ops, API calls and Python
-- frames) or an opened lane (one kind at one depth): $prefer if it is in the cursor's
-- column (the one selected), else the one running at $t if any, else the one with the
-- largest piece of the column.
-- Given:  $pid, $tid, $annotation (bool: an annotation lane), $kind (an opened lane's
--          host kind; NULL for the other lanes), $depth, $t, $t_lo, $t_hi,
--          $prefer (host_activities.id or NULL)
-- Columns: id
SELECT id
FROM host_activities
WHERE pid = $pid AND tid = $tid AND start_ns < $t_hi AND end_ns >= $t_lo
  AND CASE WHEN $kind IS NOT NULL THEN kind = $kind AND depth = $depth
           WHEN $annotation THEN kind = 'annotation' AND depth = $depth
           ELSE kind <> 'annotation' AND depth = 0 END
ORDER BY coalesce(id = $prefer, false) DESC, (start_ns <= $t AND end_ns > $t) DESC,
         least(end_ns, $t_hi) - greatest(start_ns, $t_lo) DESC, start_ns
LIMIT 1
