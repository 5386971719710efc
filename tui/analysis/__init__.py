"""Analyses over the loaded schema: kernel statistics, GPU-idle gaps, findings."""
