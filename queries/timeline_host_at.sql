-- The host interval under the timeline cursor on an annotation lane (one depth of one
-- thread's ranges) or a host-thread lane (its outermost CPU ops and API calls): the one
-- running at $t if any, else the one with the largest piece of the cursor's column.
-- Params:  $pid, $tid, $annotation (bool: which lane kind), $depth, $t, $t_lo, $t_hi
-- Columns: id
SELECT id
FROM host_activities
WHERE pid = $pid AND tid = $tid AND start_ns < $t_hi AND end_ns >= $t_lo
  AND CASE WHEN $annotation THEN kind = 'annotation' AND depth = $depth
           ELSE kind <> 'annotation' AND depth = 0 END
ORDER BY (start_ns <= $t AND end_ns > $t) DESC,
         least(end_ns, $t_hi) - greatest(start_ns, $t_lo) DESC, start_ns
LIMIT 1
