-- Params: none
-- Needs: schema
-- What the Code view's frames are (tui/derived/stacks.py): 'python' | 'nvtx' | 'none'.
SELECT value FROM trace_meta WHERE key = 'code_source';
