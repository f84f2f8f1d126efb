"""Observations turned into typed facts: the only place that knows file formats."""
