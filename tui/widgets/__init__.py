"""The app's widgets: the timeline and what sits around it. They draw what the views
(tui/views/) return; the tables below the timeline name the queries they page through,
which live in queries/widgets/."""
