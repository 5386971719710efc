-- Params: $end_ns, $start_ns
-- Needs: schema
-- Whether the window [$start_ns, $end_ns) holds every GPU activity device_time_split.sql
-- reads, each whole (none cut by its bounds, none left out, none without times): the
-- split within it is then the whole trace's, row for row (tui/analysis/diagnosis.py takes
-- that one instead of a second pass over every activity). False without any activity.
SELECT coalesce(bool_and(coalesce(start_ns >= $start_ns AND end_ns <= $end_ns
                                  AND end_ns > $start_ns AND start_ns < $end_ns, false)),
                false)
FROM gpu_activities
WHERE device IS NOT NULL;
