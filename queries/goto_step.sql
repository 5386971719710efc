-- `@ step N` on the timeline: the range of training step N. A Kineto `ProfilerStep#N`
-- annotation, else an annotation (NVTX) range named like a step: 'step 3', 'step_3',
-- 'Step#3', 'train_step 3', 'iteration 3', 'iter_3' (as rank_steps.sql); the outermost.
-- Params:  $step (the step number, as text)
-- Columns: start_ns, end_ns, pid, tid, depth, name, id (host_activities.id)
SELECT start_ns, end_ns, pid, tid, depth, name, id
FROM host_activities
WHERE kind = 'annotation'
  AND (name = 'ProfilerStep#' || $step
       OR regexp_extract(name, '^(?i)(?:train[ _-]?)?(?:step|iteration|iter)[ _#:-]?(\d+)\b',
                         1) = $step)
ORDER BY starts_with(name, 'ProfilerStep#') DESC, depth, start_ns
LIMIT 1
