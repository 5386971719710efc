-- Params: none
-- Needs: schema
-- Each frame name's key (code_frame_links.sql), the name, and whether any frame of that
-- name is the user's own code.
-- Columns: name_key, name, user_code
SELECT hash(name) AS name_key, name, bool_or(user_code) AS user_code
FROM python_frames
GROUP BY name;
