"""The review_score schema against llama.cpp: its grammar converter, and (marked `model`) the real
embedded model answering the reviewer_scoring prompt within the schema's bounds."""

import json
import re

import jsonschema
import pytest

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.manuscripts import extract_records
from peerlake.prompts import load_template
from peerlake.warehouse import settings
from tests.embedded import require_model

grammar = pytest.importorskip("llama_cpp.llama_grammar", reason="llama-cpp-python is not installed")


def test_schema_converts_to_a_grammar_that_orders_reasoning_before_the_score():
    schema = load_template("reviewer_scoring").output_schema
    gbnf = grammar.json_schema_to_gbnf(json.dumps(schema))
    root = next(line for line in gbnf.splitlines() if line.startswith("root ::="))
    keys = [k.replace("-", "_") for k in re.findall(r"([\w-]+)-kv", root)]
    assert keys == list(schema["properties"])
    assert keys.index("rationale") < keys.index("overall_score")
    # enum → an alternation of literals, so no score outside 1..10 can be produced
    score_rule = next(line for line in gbnf.splitlines() if line.startswith("overall-score ::="))
    assert '"10"' in score_rule and '"11"' not in score_rule


@pytest.mark.model
def test_local_model_answers_within_the_schema():
    require_model()
    path = settings.local_model_path()
    from llama_cpp import Llama

    t = load_template("reviewer_scoring")
    pkg = extract_records(demo_papers()[0].read_bytes())
    llm = Llama(model_path=str(path), n_ctx=settings.local_context_tokens(),
                n_threads=settings.local_threads(), verbose=False)
    out = llm.create_chat_completion(
        messages=list(t.render(paper_text=pkg.review_text(6_000))),
        response_format={"type": "json_object", "schema": t.output_schema},
        temperature=0.0, max_tokens=settings.reviewer_defaults().max_output_tokens)
    choice = out["choices"][0]
    assert choice["finish_reason"] == "stop", "bounded fields should end well before max_tokens"
    jsonschema.validate(json.loads(choice["message"]["content"]), t.output_schema)
