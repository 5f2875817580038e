"""Prompt templates (files, hashed) and the JSON schemas of their outputs."""

from peerlake.prompts.templates import PromptTemplate, TemplateError, list_templates, load_schema, load_template

__all__ = ["PromptTemplate", "TemplateError", "list_templates", "load_schema", "load_template"]
