-- Params: none
-- Needs: temp table p2p_calls
-- Per rank of a combined run that sent or received point to point (p2p_calls:
-- rank_p2p_calls.sql): the kind of its first such call and the peer of its first send; the
-- pipeline's order is read from them (tui/analysis/pipeline.py: the first stage starts
-- with a send, each stage's first send goes to the next stage).
-- Columns: rank, first_call, first_send_peer; by rank.
SELECT rank,
       arg_min(call, start_ns) AS first_call,
       arg_min(peer, start_ns) FILTER (WHERE call = 'send') AS first_send_peer
FROM p2p_calls
WHERE peer IS NOT NULL
GROUP BY rank
ORDER BY rank;
