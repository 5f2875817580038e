"""peerlake: an event-sourced lakehouse for evaluating AI peer reviewers."""

__version__ = "0.1.0"
