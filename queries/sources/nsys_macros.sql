-- Params: none
-- Needs: none
-- Macros for reading an Nsight Systems export's Python names: nsys stores a Python
-- function's or file's '<', '>' and '&' as HTML entities ('&lt;module&gt;').
CREATE OR REPLACE TEMP MACRO nsys_unescape(text) AS
    replace(replace(replace(text, '&lt;', '<'), '&gt;', '>'), '&amp;', '&');
