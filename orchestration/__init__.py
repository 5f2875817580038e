"""Dagster: software-defined assets from manuscripts to reliability marts. Entry point: definitions.py."""
