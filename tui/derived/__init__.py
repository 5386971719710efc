"""Tables derived from the schema whatever the source: host nesting and depths, GPU-idle
intervals, launch stacks, XLA op ties. Sources call these as they load; they read and
write the schema's tables and know no file format."""
