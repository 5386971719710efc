"""Loaders: one module per trace source, each filling the schema in `queries/core/schema.sql`."""
