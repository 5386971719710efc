-- Params: none
-- Needs: none
-- Macros of the Kineto loader's queries (kineto_host_activities.sql, kineto_threads.sql,
-- kineto_memory_events.sql), for this connection.
-- kineto_int_id: a pid or tid as Kineto writes it (text: nearly always an integer, at
-- times a label around one) as the first integer in it; a plain integer skips the regexp.
CREATE OR REPLACE TEMP MACRO kineto_int_id(id_text) AS
    CASE WHEN CAST(TRY_CAST(id_text AS BIGINT) AS VARCHAR) = id_text
         THEN TRY_CAST(id_text AS BIGINT)
         ELSE TRY_CAST(regexp_extract(id_text, '-?\d+') AS BIGINT) END;
