-- Params: none
-- Needs: none
-- The points tui/derived/nesting.py looks up, into the temp table stacks_points (what,
-- point_id, runtime_id, pid, tid, t): each GPU activity ('launch') with the host call its
-- correlation id names (the first, should two share one), at that call's start; and each
-- memory event ('memory') at its time. tui/derived/stacks.py fills it: the launches a part
-- at a time (stacks_points_launches.sql), then the memory events
-- (stacks_points_memory.sql).
CREATE OR REPLACE TEMP TABLE stacks_points (
    what       VARCHAR,  -- 'launch' | 'memory'
    point_id   BIGINT,   -- gpu_activities.id | memory_events.id
    runtime_id BIGINT,   -- host_activities.id of the launching call; NULL for memory
    pid        BIGINT,
    tid        BIGINT,
    t          BIGINT
);
