"""Judges: what a review-quality judge does. Requests from templates and reviews, answers parsed into
validated units, recorded as `judgment_recorded` events. Every score is computed in dbt from those
units (dbt_project/models/*/quality_*), never here."""
