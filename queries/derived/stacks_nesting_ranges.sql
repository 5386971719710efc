-- Params: $kinds, $since, $until, {host}
-- Needs: temp table {host}
-- The host ranges of each kind in $kinds that start in [$since, $until), for
-- tui/derived/nesting.py, in id order: k is the kind's place in $kinds, group_key stands
-- for (k, pid, tid) (stacks_nesting_points.sql keys a point the same way), depth as
-- host_activities numbers it (0 where unknown). {host} as in stacks_nesting_count.sql.
SELECT id, list_position($kinds, kind)::BIGINT AS k, hash(list_position($kinds, kind), pid, tid)
           AS group_key,
       start_ns, end_ns, greatest(coalesce(depth, 0), 0)::BIGINT AS depth
FROM {host}
WHERE list_contains($kinds, kind) AND start_ns >= $since AND start_ns < $until;
