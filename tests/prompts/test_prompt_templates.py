import hashlib
import json
import shutil

import jsonschema
import pytest

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.manuscripts import extract_records
from peerlake.prompts import TemplateError, list_templates, load_template
from peerlake.prompts.templates import PROMPTS_DIR


@pytest.fixture
def prompt_copy(tmp_path):
    root = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR / "templates", root / "templates")
    shutil.copytree(PROMPTS_DIR / "schemas", root / "schemas")
    return root


def _valid_answer(**over):
    answer = {"summary": "A gated adapter.", "strengths": ["simple"], "concerns": ["test-set tuning (p. 1)"],
              "rationale": "Hyperparameters were picked on the test split (p. 1).",
              "overall_score": 3, "confidence": 4}
    answer.update(over)
    return answer


def test_reviewer_scoring_loads_with_its_schema():
    assert "reviewer_scoring" in list_templates()
    t = load_template("reviewer_scoring")
    path = PROMPTS_DIR / "templates" / "reviewer_scoring.j2"
    assert t.source == path.read_text()
    assert t.hash == hashlib.sha256(path.read_bytes()).hexdigest()
    assert t.output_schema_name == "review_score"
    assert t.output_schema == json.loads((PROMPTS_DIR / "schemas" / "review_score.json").read_text())


def test_hash_changes_when_the_text_changes(prompt_copy):
    original = load_template("reviewer_scoring")
    assert load_template("reviewer_scoring", root=prompt_copy).hash == original.hash
    path = prompt_copy / "templates" / "reviewer_scoring.j2"
    path.write_text(path.read_text().replace("Be critical", "Be  critical"))
    edited = load_template("reviewer_scoring", root=prompt_copy)
    assert edited.hash != original.hash
    assert "Be  critical" in edited.render(paper_text="x")[0]["content"]


def test_render_gives_system_and_user_messages_with_the_paper():
    pkg = extract_records(demo_papers()[3].read_bytes())
    paper_text = pkg.review_text(6_000)
    t = load_template("reviewer_scoring")
    system, user = t.render(paper_text=paper_text, title=pkg.title)
    assert system["role"] == "system" and user["role"] == "user"
    assert "ICLR reviewer" in system["content"]
    assert paper_text in user["content"] and f"Title: {pkg.title}" in user["content"]
    for key in t.output_schema["required"]:
        assert key in user["content"]
    untitled = t.render(paper_text=paper_text)[1]["content"]
    assert "Title:" not in untitled and paper_text in untitled
    # The instructions around the paper stay short: the local model reads ~73 tokens/s.
    overhead = len(system["content"]) + len(untitled) - len(paper_text)
    assert overhead < 1_000


def test_missing_variable_is_an_error():
    with pytest.raises(TemplateError, match="paper_text"):
        load_template("reviewer_scoring").render(title="No paper")


def test_schema_is_valid_and_bounded_for_grammar_decoding():
    schema = load_template("reviewer_scoring").output_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    props = schema["properties"]
    assert set(schema["required"]) == set(props) and schema["additionalProperties"] is False
    assert props["overall_score"]["enum"] == list(range(1, 11))
    assert props["confidence"]["enum"] == list(range(1, 6))
    for name, spec in props.items():
        if spec["type"] == "string":
            assert 300 <= spec["maxLength"] <= 600, name
        if spec["type"] == "array":
            assert spec["maxItems"] == 3 and spec["items"]["maxLength"] <= 600, name


@pytest.mark.parametrize("over", [
    {"overall_score": 11}, {"overall_score": 6.5}, {"confidence": 0},
    {"strengths": ["a", "b", "c", "d"]}, {"rationale": "x" * 501}, {"extra": 1},
])
def test_schema_rejects_out_of_bounds_answers(over):
    schema = load_template("reviewer_scoring").output_schema
    jsonschema.validate(_valid_answer(), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_valid_answer(**over), schema)


def test_schema_rejects_missing_fields():
    schema = load_template("reviewer_scoring").output_schema
    answer = _valid_answer()
    del answer["rationale"]
    with pytest.raises(jsonschema.ValidationError, match="rationale"):
        jsonschema.validate(answer, schema)


def test_malformed_templates_are_rejected(prompt_copy):
    tdir = prompt_copy / "templates"
    (tdir / "no_header.j2").write_text("{% block system %}s{% endblock %}{% block user %}u{% endblock %}")
    (tdir / "no_user.j2").write_text("{#\nname: no_user\nversion: 1\noutput_schema: review_score\n#}\n"
                                    "{% block system %}s{% endblock %}")
    (tdir / "bad_schema.j2").write_text("{#\nname: bad_schema\nversion: 1\noutput_schema: nope\n#}\n"
                                       "{% block system %}s{% endblock %}{% block user %}u{% endblock %}")
    (tdir / "renamed.j2").write_text((tdir / "reviewer_scoring.j2").read_text())
    for name, why in [("no_header", "header"), ("no_user", "block user"), ("bad_schema", "nope"),
                      ("renamed", "differs from the file name"), ("absent", "cannot read")]:
        with pytest.raises(TemplateError, match=why):
            load_template(name, root=prompt_copy)
