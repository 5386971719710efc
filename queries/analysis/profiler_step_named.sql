-- Params: none
-- Needs: schema
-- A row where some host annotation's name starts like a profiler step's (`ProfilerStep#`:
-- every name tui.core.steps.PROFILER_STEP matches does), so that
-- work_window_profiler_steps.sql is only asked where it may find them.
SELECT 1 FROM host_activities
WHERE kind = 'annotation' AND starts_with(name, 'ProfilerStep#')
LIMIT 1;
