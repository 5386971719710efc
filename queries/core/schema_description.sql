-- Params: none
-- Needs: none
-- The documented tables and columns, for `tui schema`. Columns: table_name, table_comment,
-- column_name, data_type, column_comment.
SELECT t.table_name, t.comment AS table_comment, c.column_name, c.data_type,
       c.comment AS column_comment
FROM duckdb_tables() AS t
JOIN duckdb_columns() AS c USING (table_name)
WHERE t.table_name IN ('trace_meta', 'devices', 'gpu_activities', 'host_activities', 'gpu_idle',
                       'threads', 'python_frames', 'launches', 'memory_events',
                       'gpu_metric_names', 'gpu_metrics', 'op_flops', 'kernel_flops',
                       'host_samples', 'os_calls', 'host_callchains', 'thread_sched',
                       'python_samples', 'python_stacks')
ORDER BY list_position(['trace_meta', 'devices', 'gpu_activities', 'host_activities',
                        'gpu_idle', 'threads', 'python_frames', 'launches',
                        'memory_events', 'gpu_metric_names', 'gpu_metrics', 'op_flops',
                        'kernel_flops', 'host_samples',
                        'os_calls', 'host_callchains', 'thread_sched', 'python_samples',
                        'python_stacks'], t.table_name), c.column_index;
