-- Params: none
-- Needs: schema
-- What the trace's own Python ids say against the frames' nesting, for warnings.
-- Columns: frames, missing_parent (a "Python parent id" no frame has), other_parent (a
-- parent id that is not the enclosing frame's id: the enclosing frame is used).
WITH ids AS (SELECT DISTINCT python_id FROM python_frames WHERE python_id IS NOT NULL)
SELECT count(*) AS frames,
       count(*) FILTER (WHERE f.python_parent_id IS NOT NULL AND i.python_id IS NULL)
           AS missing_parent,
       count(*) FILTER (WHERE f.python_parent_id IS NOT NULL AND i.python_id IS NOT NULL
                          AND f.python_parent_id IS DISTINCT FROM p.python_id) AS other_parent
FROM python_frames AS f
LEFT JOIN ids AS i ON i.python_id = f.python_parent_id
LEFT JOIN python_frames AS p ON p.id = f.parent_id;
