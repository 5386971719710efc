-- Params: none
-- Needs: temp table stacks_memory
-- Replace memory_events' rows with stacks_memory (stacks_memory_context.sql).
DELETE FROM memory_events;

INSERT INTO memory_events SELECT * FROM stacks_memory;

DROP TABLE stacks_memory;
