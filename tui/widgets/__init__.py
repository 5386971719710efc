"""The app's widgets: the timeline and what sits around it. They draw; they hold no SQL."""
