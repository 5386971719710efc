-- Params: none
-- Needs: table nsys_chain_frames, table nsys_strings
-- Number the distinct call chains of nsys_chain_frames (nsys_host_chain_keys.sql) into the
-- temp table nsys_chain_ids (source, ref, chain), and write the frames of each distinct
-- chain once into host_callchains, named through nsys_strings (the module by its file
-- name). Two chains are the same when their frames hash alike: an order-free hash of each
-- frame's (depth, symbol, module) costs a fifth of building every chain's list in order.
CREATE OR REPLACE TEMP TABLE nsys_chain_keys AS
SELECT source, ref, bit_xor(hash(depth, symbol_id, module_id)) AS key
FROM nsys_chain_frames
GROUP BY source, ref;

-- each distinct chain numbered, with the first row that has it (whose frames are written)
CREATE OR REPLACE TEMP TABLE nsys_chain_numbers AS
SELECT key, row_number() OVER (ORDER BY key) - 1 AS chain, first
FROM (SELECT key, min({'source': source, 'ref': ref}) AS first
      FROM nsys_chain_keys GROUP BY key);

CREATE OR REPLACE TEMP TABLE nsys_chain_ids AS
SELECT k.source, k.ref, n.chain
FROM nsys_chain_keys AS k
JOIN nsys_chain_numbers AS n USING (key);

INSERT INTO host_callchains
SELECT n.chain, f.depth,
       coalesce(CAST(s.value AS VARCHAR), '(unknown)') AS function,
       coalesce(regexp_extract(CAST(m.value AS VARCHAR), '[^/]*$'), '(unknown)') AS module
FROM nsys_chain_numbers AS n
JOIN nsys_chain_frames AS f ON f.source = n.first.source AND f.ref = n.first.ref
LEFT JOIN nsys_strings AS s ON s.id = f.symbol_id
LEFT JOIN nsys_strings AS m ON m.id = f.module_id
ORDER BY n.chain, f.depth;
