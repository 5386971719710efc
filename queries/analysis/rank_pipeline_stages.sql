-- Params: none
-- Needs: schema
-- Per rank of a combined run that sent or received point to point (c10d's send/recv in
-- collectives): the kind of its first such call and the peer of its first send; the
-- pipeline's order is read from them (tui/analysis/pipeline.py: the first stage starts
-- with a send, each stage's first send goes to the next stage).
-- Columns: rank, first_call, first_send_peer; by rank.
SELECT rank,
       arg_min(lower(collective), start_ns) AS first_call,
       arg_min(peer, start_ns) FILTER (WHERE lower(collective) = 'send') AS first_send_peer
FROM collectives
WHERE lower(collective) IN ('send', 'recv') AND peer IS NOT NULL
GROUP BY rank
ORDER BY rank;
