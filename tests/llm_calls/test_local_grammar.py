"""String bounds above what a llama.cpp grammar can hold are lowered for the grammar only (a longer one
crashed the process: measured, maxLength 1,100 segfaults llama-cpp-python, 1,000 works)."""

from peerlake.llm_calls.providers.local import GRAMMAR_MAX_STRING, grammar_schema


def test_long_string_bounds_are_lowered_and_nothing_else_changes():
    schema = {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string", "maxLength": 3000},
        "b": {"type": "string", "maxLength": 300},
        "c": {"type": "array", "maxItems": 4000, "items": {"type": "string", "maxLength": 1001}}}}
    out = grammar_schema(schema)
    assert out["properties"]["a"]["maxLength"] == GRAMMAR_MAX_STRING == 1000
    assert out["properties"]["b"]["maxLength"] == 300
    assert out["properties"]["c"]["maxItems"] == 4000  # arrays are not strings
    assert out["properties"]["c"]["items"]["maxLength"] == 1000
    assert schema["properties"]["a"]["maxLength"] == 3000  # the request's own schema is untouched
