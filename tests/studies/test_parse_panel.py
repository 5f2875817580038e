"""[[judging.panel]]: several judge configurations in one study, each inheriting the [judging] model keys;
a study without a panel keeps the one judge, and the identities, it had before panels (#45)."""

import pytest

from peerlake.judging.base import JudgeConfig, judge_request
from peerlake.judging.registry import judges
from peerlake.studies import JudgingSpec, StudyError
from peerlake.studies.parse import parse_study
from peerlake.studies.spec import JudgeMember, PanelMember

BASE = 'name = "s"\njudges = ["depth", "flaws"]\n[papers]\ncorpus = "demo"\n'
OPENAI = '[judging]\nprovider = "openai"\nmodel = "gpt-4.1-mini"\ntemperature = 0.7\n'
# JudgeConfig.identity of the OPENAI table above (environment defaults: max_output_tokens 700, no base_url),
# computed with the code of d78afcf, before panels existed: written down, not recomputed. A template edit
# changes them (as it should); then re-pin from a checkout of the commit before the edit.
PINNED = {"depth": "4ea0bfcca02a93b1", "flaws": "1436ddd5a416b878"}


@pytest.fixture(autouse=True)
def _environment_defaults(monkeypatch):
    for var in ("PEERLAKE_PROVIDER", "PEERLAKE_MODEL", "PEERLAKE_BASE_URL", "PEERLAKE_MAX_OUTPUT_TOKENS"):
        monkeypatch.delenv(var, raising=False)


def _spec(judging: str) -> JudgingSpec:
    return parse_study("s", BASE + judging).judging


def _identity(settings: dict, judge: str) -> str:
    return JudgeConfig(**settings).identity(judge, judges()[judge].TEMPLATES)


def test_a_study_without_a_panel_parses_as_before_panels():
    spec = _spec(OPENAI)
    assert spec == JudgingSpec(provider="openai", model="gpt-4.1-mini", temperature=0.7)
    assert spec.panel == () and spec.primary is None
    assert spec.members() == [JudgeMember(None, spec.model_settings(), True)]
    assert {j: _identity(spec.members()[0].settings, j) for j in PINNED} == PINNED


def test_a_member_repeating_the_old_keys_has_the_old_identity_whatever_its_name():
    for name in ("t07", "another-name"):
        spec = _spec(OPENAI + f'[[judging.panel]]\nname = "{name}"\n[[judging.panel]]\nname = "t0"\ntemperature = 0\n')
        first = spec.members()[0]
        assert (first.label, first.is_primary) == (name, True)
        assert {j: _identity(first.settings, j) for j in PINNED} == PINNED
    spec = _spec('[judging]\nprovider = "openai"\nmodel = "gpt-4.1-mini"\n[[judging.panel]]\nname = "cold"\n'
                 '[[judging.panel]]\nname = "warm"\ntemperature = 0.7\n')
    assert {j: _identity(spec.members()[1].settings, j) for j in PINNED} == PINNED


def test_the_label_is_in_no_request():
    a = _spec(OPENAI + '[[judging.panel]]\nname = "a"\n').members()[0]
    b = _spec(OPENAI + '[[judging.panel]]\nname = "b"\n').members()[0]
    ra, rb = (judge_request(JudgeConfig(**m.settings), "depth", "units", "judge_depth_units", subject_id="p",
                            review_text="The method is novel.", max_units=None) for m in (a, b))
    assert ra.request_key == rb.request_key and ra.params == rb.params


def test_members_inherit_the_judging_model_keys_they_leave_unset():
    spec = _spec('[judging]\nprovider = "openai_compatible"\nmodel = "m"\nbase_url = "http://x/v1"\n'
                 'temperature = 0.2\nmax_output_tokens = 900\nrepeats = 2\n'
                 '[[judging.panel]]\nname = "base"\n'
                 '[[judging.panel]]\nname = "hot"\ntemperature = 0.7\n'
                 '[[judging.panel]]\nname = "m2"\nmodel = "m2"\nmax_output_tokens = 300\n'
                 '[[judging.panel]]\nname = "mini"\nprovider = "openai"\nmodel = "gpt-4.1-mini"\n')
    got = {m.label: m.settings for m in spec.members()}
    common = {"repeats": 2, "caps": (), "depth_taxonomy": "prism-reference"}
    assert got == {
        "base": {"provider": "openai_compatible", "model": "m", "temperature": 0.2, "max_output_tokens": 900,
                 "base_url": "http://x/v1", **common},
        "hot": {"provider": "openai_compatible", "model": "m", "temperature": 0.7, "max_output_tokens": 900,
                "base_url": "http://x/v1", **common},
        "m2": {"provider": "openai_compatible", "model": "m2", "temperature": 0.2, "max_output_tokens": 300,
               "base_url": "http://x/v1", **common},
        # another provider: the table's model and base_url are the other provider's, not inherited
        "mini": {"provider": "openai", "model": "gpt-4.1-mini", "temperature": 0.2, "max_output_tokens": 900,
                 "base_url": None, **common},
    }
    # experiment judges inherit the [judging] table's own model, not a member's
    assert spec.model_settings() == got["base"]
    assert spec.panel[1] == PanelMember(name="hot", temperature=0.7)


def test_the_primary_comes_first_and_the_others_keep_their_order():
    panel = '[[judging.panel]]\nname = "a"\n[[judging.panel]]\nname = "b"\ntemperature = 0.5\n' \
            '[[judging.panel]]\nname = "c"\ntemperature = 0.9\n'
    assert [(m.label, m.is_primary) for m in _spec(OPENAI + panel).members()] == \
        [("a", True), ("b", False), ("c", False)]
    members = _spec(OPENAI.replace("[judging]\n", '[judging]\nprimary = "c"\n') + panel).members()
    assert [(m.label, m.is_primary) for m in members] == [("c", True), ("a", False), ("b", False)]


def _member(i: int, body: str) -> str:
    return f'[[judging.panel]]\nname = "m{i}"\ntemperature = 0.{i}\n{body}'


@pytest.mark.parametrize(("judging", "says"), [
    ('[[judging.panel]]\ntemperature = 0.5\n', 'judging.panel[0] needs a name, e.g. name = "t0"'),
    ('[[judging.panel]]\nname = "T0"\n', "judging.panel[0].name = 'T0': use 1 to 32 lowercase letters"),
    ('[[judging.panel]]\nname = "-x"\n', "starting with a letter or digit"),
    (f'[[judging.panel]]\nname = "{"x" * 33}"\n', "use 1 to 32 lowercase letters"),
    ('[[judging.panel]]\nname = 7\n', "judging.panel[0].name = 7"),
    ('[[judging.panel]]\nname = "a"\n[[judging.panel]]\nname = "a"\ntemperature = 0.5\n',
     "judging.panel[1].name = 'a' is already a member's; give each member its own name"),
    (_member(1, 'temprature = 0.3\n'), "unknown key(s) judging.panel[0].temprature; did you mean "
                                       "`judging.panel[0].temperature`?"),
    (_member(1, 'templates = {}\n'), "known: judging.panel[0].base_url, judging.panel[0].max_output_tokens, "
                                     "judging.panel[0].model, judging.panel[0].name"),
    (_member(1, 'repeats = 3\n'), "judging.panel[0].repeats: repeats is study-wide (so repeatability compares "
                                  "like with like); set judging.repeats instead"),
    ('primary = "t9"\n' + _member(1, "") + _member(2, ""),
     "judging.primary = 't9' names no panel member; members: m1, m2"),
    ('primary = "t0"\n', "judging.primary names a panel member, but the study has no [[judging.panel]]; "
                         "add the members or remove primary"),
    ('[[judging.panel]]\nname = "a"\n[[judging.panel]]\nname = "b"\ntemperature = 0\n',
     "judging.panel members 'a' and 'b' resolve to the same judge (openai/gpt-4.1-mini, temperature 0.0); "
     "change a model key of one, or remove it"),
    ('[[judging.panel]]\nname = "a"\n[[judging.panel]]\nname = "b"\nmax_output_tokens = 700\n',
     "members 'a' and 'b' resolve to the same judge"),  # 700: the environment's default
    ('panel = []\n', "judging.panel is a list of members, one [[judging.panel]] table each with a name"),
    ('panel = "t0"\n', "judging.panel is a list of members"),
    ('[[judging.panel]]\nname = "a"\ntemperature = -1\n', "judging.panel[0].temperature must be a number >= 0"),
    (_member(1, 'max_output_tokens = 0\n'), "judging.panel[0].max_output_tokens must be a whole number >= 1"),
    (_member(1, 'model = ""\n'), "judging.panel[0].model must be a non-empty string"),
    (_member(1, 'base_url = "http://x/v1"\n'), "judging.panel[0].base_url is ignored by provider 'openai'"),
    (_member(1, 'provider = "anthropic"\n'), "[[judging.panel]] 'm1': provider 'anthropic' needs a model"),
])
def test_a_bad_panel_is_refused_saying_what_to_do(judging, says):
    table = '[judging]\nprovider = "openai"\nmodel = "gpt-4.1-mini"\n' + judging
    with pytest.raises(StudyError) as info:
        _spec(table)
    assert says in str(info.value)
