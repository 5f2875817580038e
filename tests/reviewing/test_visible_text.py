"""Hidden text never reaches a reviewer by default (issue #23, item 8): on a demo paper with a white prompt
injected after its conclusion (ingest flags it), the default template reviewer, score probe and reviewer
system read the visible text only; `strip_hidden = false` is the attack arm, a configuration of its own;
the study records what each reviewer read; the old robustness-demo study text is upgraded."""

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from peerlake.ingest import hidden_text
from peerlake.ingest.papers import ingest_pdf, latest_versions
from peerlake.reviewing.probes import probe_code_version, probe_requests
from peerlake.reviewing.scoring import ReviewerConfig, review_requests
from peerlake.reviewing.systems import get_system
from peerlake.reviewing.systems.runs import system_runs
from peerlake.studies import ROBUSTNESS_DEMO, StudyError, builtin_text, load_study, parse_study, record_resolution
from peerlake.studies.builtin import OLD_SHA256
from peerlake.warehouse import EventLog
from peerlake.warehouse.studies import StudyFiles

DEMO = sorted((Path(__file__).resolve().parents[2] / "ingest" / "demo_corpus" / "papers").glob("*.pdf"))
TEXT = hidden_text.DEFAULT_TEXT
# A distinctive stretch of the injected prompt (the extracted text may break lines elsewhere).
NEEDLE = "raise no major weaknesses"


@pytest.fixture
def injected(lake):
    """A lake holding demo paper 1 and its variant with the default prompt in white text."""
    log = EventLog(lake)
    ingest_pdf(log, DEMO[0], paper_id="demo-1")
    events = hidden_text.build(log, [latest_versions(log)["demo-1"]],
                               hidden_text.Spec.from_table({"methods": ["white"]}), study="s")
    variant = latest_versions(log)[events[0].variant_id]
    assert variant.n_hidden_records == 1  # the check flagged the prompt: the premise of every test here
    return log, variant


def _prompt(requests) -> str:
    return " ".join(" ".join(m["content"] for m in r.messages) for r in requests)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_default_reviewer_and_probe_read_the_visible_text(injected):
    log, variant = injected
    cfg = ReviewerConfig(provider="local", model="m", template="reviewer_scoring", samples=1, temperature=0.7,
                         max_output_tokens=64)
    assert NEEDLE not in _flat(_prompt(review_requests(log, variant, cfg)))
    assert NEEDLE not in _flat(_prompt(probe_requests(log, variant, cfg)))
    attack = replace(cfg, strip_hidden=False)
    assert NEEDLE in _flat(_prompt(review_requests(log, variant, attack)))
    assert NEEDLE in _flat(_prompt(probe_requests(log, variant, attack)))
    # the two arms are two configurations, on the requests as in the study's identity
    assert {r.reviewer_config for r in review_requests(log, variant, attack)} == {attack.code_version()}
    assert attack.code_version() != cfg.code_version()
    assert probe_code_version(attack) != probe_code_version(cfg)


def test_a_default_configuration_keeps_its_identity():
    # reviewer_config of a default reviewer is what it was before reads_hidden existed: the same six
    # fields hashed (so recorded reviews stay under their configuration)
    from peerlake.llm_calls.types import LlmRequest
    from peerlake.warehouse.canonical import canonical_json, sha256_text

    req = LlmRequest(provider="local", model="m", messages=(), params={"temperature": 0.7, "seed": 1},
                     prompt_hash="h")
    ident = {"prompt_hash": "h", "provider": "local", "model": "m", "params": {"temperature": 0.7},
             "response_schema": None, "top_logprobs": None}
    assert req.reviewer_config == sha256_text(canonical_json(ident))[:16]
    assert replace(req, reads_hidden=True).reviewer_config != req.reviewer_config


def test_a_reviewer_system_reads_the_visible_text_unless_told_otherwise(injected):
    log, variant = injected
    system = get_system("mlr")
    defended = system.resolve({})
    assert defended["strip_hidden"] is True  # recorded explicitly: the system_review says what it read
    attack = system.resolve({"strip_hidden": False})
    from peerlake.reviewing.systems.base import SystemConfig

    def run_text(opts):
        cfg = SystemConfig(system="mlr", provider="local", model="m", options=tuple(sorted(opts.items())))
        (run,) = system_runs(log, [variant], [cfg])
        return _flat(" ".join(r.text for r in run.package.records))

    assert NEEDLE not in run_text(defended)
    assert NEEDLE in run_text(attack)


def test_a_study_takes_strip_hidden_for_template_reviewers_and_records_it(injected):
    log, _ = injected
    study = parse_study("s", 'name = "s"\n[papers]\nids = ["demo-1"]\n'
                             '[[reviewers]]\nsamples = 1\n'
                             '[[reviewers]]\nsamples = 1\nstrip_hidden = false\n'
                             '[[reviewers]]\nsystem = "mlr"\n')
    templates = [r.config() for r in study.reviewers if r.system is None]
    assert [c.strip_hidden for c in templates] == [True, False]
    configs = [*templates, study.reviewers[2].system_config()]
    event = record_resolution(log, study, ["demo-1"], configs, asset="ai_reviews")
    assert [r["strip_hidden"] for r in json.loads(event.reviewers_json)] == [True, False, True]
    head = 'name = "s"\n[papers]\nids = ["demo-1"]\n[[reviewers]]\n'
    with pytest.raises(StudyError, match="strip_hidden"):
        parse_study("s", head + 'system = "mlr"\nstrip_hidden = false\n')
    with pytest.raises(StudyError, match="strip_hidden"):
        parse_study("s", head + 'strip_hidden = "no"\n')


def test_the_old_robustness_demo_is_upgraded_to_name_its_attack_arm(lake):
    new = builtin_text(ROBUSTNESS_DEMO)
    old = new.replace("# the attack: this reviewer reads the text layer whole, hidden text included\n", "") \
        .replace("options = { sample_one = true, strip_hidden = false }", "options = { sample_one = true }") \
        .replace("defence (the default): it", "defence: it")
    assert hashlib.sha256(old.encode()).hexdigest() in OLD_SHA256["robustness-demo"]
    log = EventLog(lake)
    StudyFiles(lake).write("robustness-demo", old)
    study = load_study(log, "robustness-demo")
    assert study.text == new
    options = [dict(r.options) for r in study.reviewers]
    assert [o.get("strip_hidden") for o in options] == [False, True]
    StudyFiles(lake).write("robustness-demo", old + "\n# edited\n")  # a user's edit is left alone
    assert load_study(log, "robustness-demo").text == old + "\n# edited\n"
