-- Params: $kinds, $since, {host}
-- Needs: temp table {host}
-- The host ranges of the kinds in $kinds that start before $since and are still open at it
-- (they end at $since or later), columns as stacks_nesting_ranges.sql gives them: what a
-- window of tui/derived/nesting.py that begins at $since carries in from before (a point
-- at $since or later can be inside them, a range starting then can be their child). Read
-- here rather than carried from the window before, so that each window needs nothing from
-- the one before it. {host} as in stacks_nesting_count.sql.
SELECT id, list_position($kinds, kind)::BIGINT AS k, hash(list_position($kinds, kind), pid, tid)
           AS group_key,
       start_ns, end_ns, greatest(coalesce(depth, 0), 0)::BIGINT AS depth
FROM {host}
WHERE list_contains($kinds, kind) AND start_ns < $since AND end_ns >= $since;
