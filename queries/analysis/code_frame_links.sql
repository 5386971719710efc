-- Params: none
-- Needs: schema
-- Every Python frame's link to its parent and its name as a key, for GPU time by frame
-- (tui/analysis/frame_walk.py, which walks the links in NumPy), in id order.
-- Columns: id, parent_id (the frame's own id where it has none), top (no parent),
--          name_key (a hash of the name)
SELECT id, coalesce(parent_id, id) AS parent_id, parent_id IS NULL AS top,
       hash(name) AS name_key
FROM python_frames
ORDER BY id;
