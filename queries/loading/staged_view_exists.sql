-- Params: $database, $view
-- Needs: none
-- A row where the view $database.main.$view exists: the GPU rows a loader staged where
-- another connection reads them (tui/loading/trace.py, kineto_gpu_activities.sql).
SELECT 1 FROM duckdb_views()
WHERE database_name = $database AND schema_name = 'main' AND view_name = $view;
