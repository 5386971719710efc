-- Params: $name, $t
-- Needs: schema
-- `@ NAME` on the timeline: an annotation (NVTX / user annotation) range by name. Ranges
-- named exactly so (any case) come before those that only contain it; among them, the
-- first that starts after the cursor, else the first of the trace.
-- Given:  $name (text), $t (the cursor, ns)
-- Columns: start_ns, end_ns, pid, tid, depth, name, id (host_activities.id)
SELECT start_ns, end_ns, pid, tid, depth, name, id
FROM host_activities
WHERE kind = 'annotation' AND contains(lower(name), lower($name))
ORDER BY lower(name) = lower($name) DESC, start_ns <= $t, start_ns, depth
LIMIT 1
