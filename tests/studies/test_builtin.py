"""The built-in studies are files whose bytes are their version: every lake that ran one recorded its
SHA-256, so a changed file is a new study (and the old hash belongs in OLD_SHA256 so lakes upgrade)."""

import hashlib
import tomllib

import pytest

from peerlake.studies import JUDGES, parse_study
from peerlake.studies.builtin import BUILTIN_STUDIES, OLD_SHA256, builtin_text
from peerlake.warehouse import settings

# The texts' hashes as the releases before the .toml files recorded them (built from f-strings then).
RECORDED = {
    "demo": "10bb1372abc5339e9636affd26b5c4763f335203a1c24f36f67163ba29c1ec79",
    "judging-demo": "50cd533d66b5f0cf75dbf6d8111a233b0bba73d27de8321d2acd6132d0cc28b3",
    "systems-demo": "d0ceb313d48f1181ecb3b05362c998b86ebafb10a3b8b825a1d58cfc2879dd3e",
    "robustness-demo": "ee662a73629730cc1f28cff05fee680604102b9f0d483da26846e4162058cd8c",
    "revision-demo": "c9cd71f4207e665c7f23010c7e14f8546f61fa167ac8e74bcf557ca5dd0ec762",
    "stress-demo": "3728386a72b8388ac09768dd6c5cebed21df0cb913dce2f4936aefab9f2bb4fe",
}


@pytest.mark.parametrize("name", BUILTIN_STUDIES)
def test_a_builtin_study_keeps_its_recorded_version_and_loads(name):
    text = builtin_text(name)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == RECORDED[name]
    assert RECORDED[name] not in OLD_SHA256.get(name, ())  # never "upgraded" to itself
    assert parse_study(name, text).name == name


def test_the_builtins_name_what_the_code_names():
    # the texts once interpolated these; now a renamed judge or embedded model must be edited here too
    assert tuple(parse_study("judging-demo", builtin_text("judging-demo")).judges) == JUDGES
    models = tomllib.loads(builtin_text("revision-demo"))["revision"]["models"]
    assert (models["L"]["model"], models["H"]["model"]) == (settings.LOCAL_MODEL_NAME, settings.LOCAL_SMALL_MODEL_NAME)


def test_an_unknown_builtin_is_refused():
    with pytest.raises(KeyError, match="no built-in study 'nope'"):
        builtin_text("nope")
