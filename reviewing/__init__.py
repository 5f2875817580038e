"""What a reviewer or a judge *does*: requests built from templates and manuscripts, answers parsed.

Above llm_calls/, prompts/ and ingest/; below orchestration/ (Dagster assets stay thin)."""
