-- Params: none
-- Needs: none
-- The points tui/derived/nesting.py looks up, into the temp table stacks_points (is_memory,
-- point_id, runtime_id, pid, tid, t): each GPU activity (a launch) with the host call its
-- correlation id names (the first, should two share one), at that call's start; and each
-- memory event at its time. A flag, not the kind's name: written once a point (1.6M at
-- 3 GB), a string cost ~0.04 s more. tui/derived/stacks.py fills it: the launches a part
-- at a time (stacks_points_launches.sql), then the memory events
-- (stacks_points_memory.sql).
CREATE OR REPLACE TEMP TABLE stacks_points (
    is_memory  BOOLEAN,  -- a memory event's point, not a launch's
    point_id   BIGINT,   -- gpu_activities.id | memory_events.id
    runtime_id BIGINT,   -- host_activities.id of the launching call; NULL for memory
    pid        BIGINT,
    tid        BIGINT,
    t          BIGINT
);
