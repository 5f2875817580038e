"""Studies that name reviewer systems: options checked against the system's own, clear errors, a
paper subset per reviewer, and the study_resolved rows the marts scope by."""

import json
from typing import ClassVar

import pytest

from peerlake.reviewing.systems import register
from peerlake.reviewing.systems.base import ReviewerSystem
from peerlake.studies import StudyError, parse_study, record_resolution
from peerlake.warehouse.log import EventLog


class Tiny(ReviewerSystem):
    name = "tiny"
    defaults: ClassVar[dict] = {"ensemble": 5, "agents": ["a"], "literature": False, "repair_attempts": 1}

    def templates(self, opts):
        return ["reviewer_scoring"]

    def check(self, opts):
        if opts["ensemble"] < 1:
            from peerlake.reviewing.systems.base import SystemOptionError

            raise SystemOptionError("ensemble must be >= 1")


@pytest.fixture(autouse=True)
def _tiny():
    register(Tiny())


STUDY = """name = "s"
[papers]
ids = ["p1", "p2", "p3"]
[[reviewers]]
template = "reviewer_scoring"
samples = 2
[[reviewers]]
system = "tiny"
papers = ["p2"]
options = { ensemble = 3 }
"""


def test_a_study_lists_template_reviewers_and_systems_apart():
    study = parse_study("s", STUDY)
    [scorer] = study.reviewer_configs()
    [tiny] = study.system_configs()
    assert scorer.template == "reviewer_scoring" and scorer.samples == 2 and scorer.covers("p1")
    # the system's defaults with the study's override, and the recorded common option (the visible text
    # by default); one review per paper unless samples says more
    assert tiny.opts == {"ensemble": 3, "agents": ["a"], "literature": False, "repair_attempts": 1,
                         "strip_hidden": True}
    assert tiny.samples == 1 and tiny.papers == ("p2",)
    assert not tiny.covers("p1") and tiny.covers("p2")


def test_the_identity_follows_options_not_samples_or_papers():
    base = parse_study("s", STUDY).system_configs()[0]
    more = parse_study("s", STUDY.replace('papers = ["p2"]', 'samples = 4')).system_configs()[0]
    other = parse_study("s", STUDY.replace("ensemble = 3", "ensemble = 4")).system_configs()[0]
    assert base.identity() == more.identity() != other.identity()


@pytest.mark.parametrize(("change", "message"), [
    ('options = { ensemble = 3 }', None),
    ('options = { ensembel = 3 }', "unknown option(s) ensembel; known: agents, ensemble, literature, repair_attempts"),
    ('options = { ensemble = "three" }', "option ensemble = 'three' should be like 5"),
    ('options = { ensemble = 0 }', "ensemble must be >= 1"),
    ('options = { literature = 1 }', "option literature = 1 should be like False"),
])
def test_system_options_are_checked_when_the_study_is_read(change, message):
    text = STUDY.replace("options = { ensemble = 3 }", change)
    if message is None:
        parse_study("s", text)
        return
    with pytest.raises(StudyError) as err:
        parse_study("s", text)
    assert message in str(err.value) and "reviewers[1]" in str(err.value)


def test_unusable_reviewer_entries_say_what_to_change():
    with pytest.raises(StudyError, match="unknown reviewer system 'nope'; known: mlr, mlr-combined"):
        parse_study("s", STUDY.replace('system = "tiny"', 'system = "nope"'))
    with pytest.raises(StudyError, match="names both a system and a template"):
        parse_study("s", STUDY.replace('system = "tiny"', 'system = "tiny"\ntemplate = "x"'))
    with pytest.raises(StudyError, match="options is a table of a system's options"):
        parse_study("s", STUDY.replace('samples = 2', 'samples = 2\noptions = { a = 1 }'))
    with pytest.raises(StudyError, match="papers must be a list"):
        parse_study("s", STUDY.replace('papers = ["p2"]', 'papers = "p2"'))


def test_probes_need_a_template_reviewer():
    only_systems = STUDY.replace('[[reviewers]]\ntemplate = "reviewer_scoring"\nsamples = 2\n', "")
    study = parse_study("s", only_systems)
    assert study.reviewer_configs() == [] and len(study.system_configs()) == 1
    with pytest.raises(StudyError, match="score probes need a template reviewer"):
        study.first_template_reviewer("score probes")


def test_the_resolution_names_each_system_configuration(lake):
    log = EventLog(lake)
    study = parse_study("s", STUDY)
    [tiny] = study.system_configs()
    ev = record_resolution(log, study, ["p1", "p2"], [tiny], asset="system_reviews")
    assert json.loads(ev.reviewers_json) == [{"reviewer_config": tiny.identity(), "system": "tiny",
                                              "provider": tiny.provider, "model": tiny.model, "samples": 1,
                                              "strip_hidden": True}]


def test_study_new_writes_system_reviewers():
    from peerlake.studies import study_text

    text = study_text("sys", ids=["p1"], samples=2, systems=["tiny", "tiny"])
    study = parse_study("sys", text)
    assert study.reviewer_configs() == [] and [c.samples for c in study.system_configs()] == [2, 2]
    with pytest.raises(StudyError, match="unknown reviewer system 'nope'"):
        study_text("sys", ids=["p1"], systems=["nope"])
