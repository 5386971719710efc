-- Params: $order
-- Needs: temp table p2p_calls, temp table step_ranges
-- A pipeline's transfers per step (p2p_calls: rank_p2p_calls.sql), given its stage order
-- ($order: the ranks, first stage first). A transfer is forward (activations) when it sends to the next stage or receives
-- from the previous one, else backward (gradients). Per rank and step: its forward sends,
-- and whether every forward transfer came before the first backward one (GPipe: all
-- forwards, then all backwards; 1F1B interleaves them once the pipeline is full).
-- Columns: rank, stage (0 first), steps, forward_sends_median, phased (every step's
--          forwards before its backwards); by stage.
WITH calls AS (
    SELECT c.rank, s.start_ns AS step_start_ns, c.start_ns, c.call, c.peer,
           list_position($order, c.rank) - 1 AS stage
    FROM p2p_calls AS c
    JOIN step_ranges AS s
        ON s.rank = c.rank AND c.start_ns >= s.start_ns AND c.start_ns < s.end_ns
    WHERE list_contains($order, c.rank)
), directed AS (
    SELECT *,
           (call = 'send' AND peer = $order[stage + 2])
           OR (call = 'recv' AND stage > 0 AND peer = $order[stage]) AS forward
    FROM calls
), per_step AS (
    SELECT rank, stage, step_start_ns,
           count(*) FILTER (WHERE forward AND call = 'send') AS forward_sends,
           coalesce(max(start_ns) FILTER (WHERE forward)
                    < min(start_ns) FILTER (WHERE NOT forward), true) AS phased
    FROM directed
    GROUP BY rank, stage, step_start_ns
)
SELECT rank, stage, count(*) AS steps, median(forward_sends) AS forward_sends_median,
       bool_and(phased) AS phased
FROM per_step
GROUP BY rank, stage
ORDER BY stage;
