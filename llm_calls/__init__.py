"""The only door to any model: every call becomes an immutable, costed `llm_call` event."""
