"""Reading a study file: TOML in, a checked Study out; every problem is a StudyError naming the key and
saying what to change."""

import json
import re
import tomllib

from peerlake.judging.caps import check_caps
from peerlake.reviewing.systems.base import SystemOptionError
from peerlake.studies.spec import (
    DEMO,
    EXPERIMENTS,
    JUDGE_MODEL_KEYS,
    JUDGES,
    PANEL_NAME,
    RETRIEVAL_BACKENDS,
    REVIEW_SOURCES,
    REVISION,
    CostSpec,
    JudgingSpec,
    PanelMember,
    ReviewerSpec,
    Study,
    StudyError,
)

PAPER_KEYS = {"corpus", "folders", "sample", "venues", "ids", "all_ingested"}
REVIEWER_KEYS = {"template", "samples", "provider", "model", "temperature", "max_output_tokens", "base_url",
                 "system", "options", "papers", "strip_hidden"}
TOP_KEYS = {"name", "description", "papers", "reviewers", "external_systems", "judges", "judging", "costs",
            REVISION, *EXPERIMENTS}
COSTS_KEYS = {"max_cost_usd", "batch"}
JUDGING_KEYS = {"papers", "reviews", "sources", "peerlake_samples", "human_per_paper", "repeats", "retrieval",
                "max_claims", "verify_top", "claims_without_paper", "caps", "depth_taxonomy", "probes", "require",
                "panel", "primary",
                *JUDGE_MODEL_KEYS}
PANEL_KEYS = {"name", *JUDGE_MODEL_KEYS}  # a [[judging.panel]] member's


def parse_study(name: str, text: str) -> Study:
    """Parse and check a study file; every problem is a StudyError naming the key."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"study {name!r}: not valid TOML: {exc}") from None
    _no_unknown(name, "", raw, TOP_KEYS)
    if raw.get("name", name) != name:
        raise StudyError(f"study {name!r}: the file says name = {raw['name']!r}; rename one of them")
    papers = raw.get("papers", {})
    _no_unknown(name, "papers.", papers, PAPER_KEYS)
    if not any(papers.get(k) for k in PAPER_KEYS):
        raise StudyError(f"study {name!r}: [papers] selects nothing; set one of {sorted(PAPER_KEYS)}")
    if papers.get("corpus") not in (None, DEMO):
        raise StudyError(f"study {name!r}: papers.corpus = {papers['corpus']!r}; the only corpus is 'demo'")
    reviewers = []
    # no [[reviewers]] table: the default reviewer; `reviewers = []`: imported reviews only
    for i, r in enumerate(raw.get("reviewers", [{}])):
        _no_unknown(name, f"reviewers[{i}].", r, REVIEWER_KEYS)
        if r.get("samples") is not None and (not isinstance(r["samples"], int) or r["samples"] < 1):
            raise StudyError(f"study {name!r}: reviewers[{i}].samples must be a whole number >= 1")
        if r.get("system") is not None and "template" in r:
            raise StudyError(f"study {name!r}: reviewers[{i}] names both a system and a template; a system "
                             "brings its own templates")
        if "options" in r and (r.get("system") is None or not isinstance(r["options"], dict)):
            raise StudyError(f"study {name!r}: reviewers[{i}].options is a table of a system's options "
                             "(needs system = ...)")
        if "strip_hidden" in r and (r.get("system") is not None or not isinstance(r["strip_hidden"], bool)):
            raise StudyError(f"study {name!r}: reviewers[{i}].strip_hidden is true or false for a template "
                             "reviewer; a system takes it in options = { strip_hidden = ... }")
        if not isinstance(r.get("papers", []), list):
            raise StudyError(f"study {name!r}: reviewers[{i}].papers must be a list of paper ids")
        _no_base_url_for_hosted(name, f"reviewers[{i}]", r)
        spec = ReviewerSpec(**{**r, "options": tuple(sorted(r.get("options", {}).items())),
                               "papers": tuple(str(p) for p in r.get("papers", ()))})
        if spec.system is not None:
            try:
                from peerlake.reviewing.systems import get_system

                get_system(spec.system).resolve(dict(spec.options))
            except SystemOptionError as exc:
                raise StudyError(f"study {name!r}: reviewers[{i}]: {exc}") from None
        reviewers.append(spec)
    judges = raw.get("judges", [])
    if not isinstance(judges, list) or (unknown := sorted(set(map(str, judges)) - set(JUDGES))):
        raise StudyError(f"study {name!r}: judges must be a list of {', '.join(JUDGES)}"
                         + (f"; unknown: {', '.join(unknown)}" if isinstance(judges, list) else ""))
    judging = _judging(name, raw.get("judging", {}), tuple(map(str, judges)))
    costs = _costs(name, raw.get("costs", {}))
    experiments = {}
    for e in EXPERIMENTS:
        if e in raw:
            if not isinstance(raw[e], dict):
                raise StudyError(f"study {name!r}: [{e}] must be a table")
            experiments[e] = raw[e]
    if REVISION in raw:
        from peerlake.reviewing.revision.spec import RevisionSpec, RevisionSpecError

        try:
            RevisionSpec.from_table(raw[REVISION])
        except RevisionSpecError as exc:
            raise StudyError(f"study {name!r}: {exc}") from None
        experiments[REVISION] = raw[REVISION]
    return Study(name=name, text=text, description=raw.get("description", ""),
                 corpus=papers.get("corpus"), folders=tuple(papers.get("folders", ())),
                 sample=papers.get("sample"), venues=tuple(papers.get("venues", ())),
                 ids=tuple(str(i) for i in papers.get("ids", ())),
                 all_ingested=bool(papers.get("all_ingested", False)), reviewers=tuple(reviewers),
                 external_systems=tuple(raw.get("external_systems", ())),
                 judges=tuple(j for j in JUDGES if j in judges), judging=judging, costs=costs,
                 experiments_json=json.dumps(experiments, sort_keys=True, default=str))


def _costs(name: str, table: dict) -> CostSpec:
    _no_unknown(name, "costs.", table, COSTS_KEYS)
    cap = table.get("max_cost_usd")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, float)) or cap < 0):
        raise StudyError(f"study {name!r}: costs.max_cost_usd must be a number of US dollars >= 0")
    batch = table.get("batch", False)
    if not isinstance(batch, bool):
        raise StudyError(f"study {name!r}: costs.batch must be true or false")
    return CostSpec(max_cost_usd=None if cap is None else float(cap), batch=batch)


def _no_base_url_for_hosted(name: str, where: str, table: dict) -> None:
    """OpenAI's and Anthropic's providers call their own API (or the SDK's OPENAI_BASE_URL /
    ANTHROPIC_BASE_URL): a study's base_url would be ignored there, and the calls go elsewhere than
    the study says. Refused, naming what to use instead."""
    if table.get("base_url") is not None and table.get("provider") in ("openai", "anthropic"):
        env = "OPENAI_BASE_URL" if table["provider"] == "openai" else "ANTHROPIC_BASE_URL"
        raise StudyError(f"study {name!r}: {where}.base_url is ignored by provider {table['provider']!r}; use "
                         f"provider = \"openai_compatible\" for another server, or set {env} for a proxy of "
                         "the same API")


def _judging(name: str, table: dict, judges: tuple[str, ...] = ()) -> JudgingSpec:
    _no_unknown(name, "judging.", table, JUDGING_KEYS)
    _no_base_url_for_hosted(name, "judging", table)
    for key in ("peerlake_samples", "human_per_paper", "repeats", "max_claims", "verify_top"):
        v = table.get(key)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
            raise StudyError(f"study {name!r}: judging.{key} must be a whole number >= 1")
    reviews = table.get("reviews", [])
    if not isinstance(reviews, list) or not all(isinstance(r, str) and r.strip() for r in reviews):
        raise StudyError(f"study {name!r}: judging.reviews must be a list of review keys, e.g. "
                         "[\"external:disapere:r1\"]")
    if not isinstance(table.get("claims_without_paper", False), bool):
        raise StudyError(f"study {name!r}: judging.claims_without_paper must be true or false")
    sources = tuple(table.get("sources", REVIEW_SOURCES))
    if bad := sorted(set(sources) - set(REVIEW_SOURCES)):
        raise StudyError(f"study {name!r}: judging.sources has {', '.join(bad)}; known: {', '.join(REVIEW_SOURCES)}")
    if table.get("retrieval", "offline") not in RETRIEVAL_BACKENDS:
        raise StudyError(f"study {name!r}: judging.retrieval = {table['retrieval']!r}; "
                         f"known: {', '.join(RETRIEVAL_BACKENDS)}")
    t = table.get("temperature", 0.0)
    if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
        raise StudyError(f"study {name!r}: judging.temperature must be a number >= 0")
    raw_caps = table.get("caps", {})
    if not isinstance(raw_caps, dict):
        raise StudyError(f"study {name!r}: judging.caps must be a table, e.g. [judging.caps] depth_units = 12")
    try:
        caps = check_caps(raw_caps)
    except ValueError as exc:
        raise StudyError(f"study {name!r}: {exc}") from None
    if table.get("max_claims") is not None:
        caps.setdefault("novelty_claims", table["max_claims"])
    depth_taxonomy = table.get("depth_taxonomy", "prism-reference")
    if not isinstance(depth_taxonomy, str) or not depth_taxonomy.strip():
        raise StudyError(f"study {name!r}: judging.depth_taxonomy must be a shipped taxonomy's name "
                         "(prism-reference, prism-paper) or a path to a TOML file")
    probes, probe_seed, probe_tolerances = _probes(name, table.get("probes", {}))
    panel, primary = _panel(name, table)
    spec = JudgingSpec(panel=panel, primary=primary,
                       probes=probes, probe_seed=probe_seed, probe_tolerances=probe_tolerances,
                       require=_require(name, table.get("require", {}), judges),
                       papers=tuple(str(p) for p in table.get("papers", ())), reviews=tuple(reviews),
                       sources=sources,
                       peerlake_samples=table.get("peerlake_samples"), human_per_paper=table.get("human_per_paper"),
                       repeats=table.get("repeats", 1), retrieval=table.get("retrieval", "offline"),
                       max_claims=table.get("max_claims"), verify_top=table.get("verify_top", 3),
                       claims_without_paper=table.get("claims_without_paper", False),
                       caps=tuple(sorted(caps.items())), depth_taxonomy=depth_taxonomy.strip(),
                       provider=table.get("provider"),
                       model=table.get("model"), temperature=float(t),
                       max_output_tokens=table.get("max_output_tokens"), base_url=table.get("base_url"))
    if panel:
        _distinct_members(name, spec)
    return spec


def _panel(name: str, table: dict) -> tuple[tuple[PanelMember, ...], str | None]:
    """[[judging.panel]]: named judge configurations, each a [judging] model key or more away from the table's;
    `primary` names the headline one. No panel: (), None (the one judge of before panels)."""
    raw, primary = table.get("panel"), table.get("primary")
    if raw is None:
        if primary is not None:
            raise StudyError(f"study {name!r}: judging.primary names a panel member, but the study has no "
                             "[[judging.panel]]; add the members or remove primary")
        return (), None
    if not isinstance(raw, list) or not raw or not all(isinstance(m, dict) for m in raw):
        raise StudyError(f"study {name!r}: judging.panel is a list of members, one [[judging.panel]] table "
                         "each with a name (e.g. [[judging.panel]] name = \"t0\")")
    members, names = [], []
    for i, m in enumerate(raw):
        where = f"judging.panel[{i}]"
        if "repeats" in m:
            raise StudyError(f"study {name!r}: {where}.repeats: repeats is study-wide (so repeatability compares "
                             "like with like); set judging.repeats instead")
        _no_unknown(name, f"{where}.", m, PANEL_KEYS)
        label = m.get("name")
        if label is None:
            raise StudyError(f"study {name!r}: {where} needs a name, e.g. name = \"t0\" (a label for the tables, "
                             "never part of the judge's identity)")
        if not isinstance(label, str) or not re.fullmatch(PANEL_NAME, label):
            raise StudyError(f"study {name!r}: {where}.name = {label!r}: use 1 to 32 lowercase letters, digits, "
                             "'.', '_' or '-', starting with a letter or digit (e.g. \"t07\", \"gpt-4.1-mini\")")
        if label in names:
            raise StudyError(f"study {name!r}: {where}.name = {label!r} is already a member's; give each "
                             "member its own name")
        names.append(label)
        _member_values(name, where, m, table)
        members.append(PanelMember(name=label, provider=m.get("provider"), model=m.get("model"),
                                   temperature=None if m.get("temperature") is None else float(m["temperature"]),
                                   max_output_tokens=m.get("max_output_tokens"), base_url=m.get("base_url")))
    if primary is not None and primary not in names:
        raise StudyError(f"study {name!r}: judging.primary = {primary!r} names no panel member; members: "
                         f"{', '.join(names)}")
    return tuple(members), primary


def _member_values(name: str, where: str, m: dict, table: dict) -> None:
    """A member's model keys, checked as the [judging] table's (base_url with the provider it goes with)."""
    for key in ("provider", "model", "base_url"):
        if key in m and (not isinstance(m[key], str) or not m[key].strip()):
            raise StudyError(f"study {name!r}: {where}.{key} must be a non-empty string")
    t = m.get("temperature", 0.0)
    if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
        raise StudyError(f"study {name!r}: {where}.temperature must be a number >= 0")
    v = m.get("max_output_tokens")
    if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
        raise StudyError(f"study {name!r}: {where}.max_output_tokens must be a whole number >= 1")
    # a member on the table's provider inherits its base_url, already checked with the table
    _no_base_url_for_hosted(name, where, {"provider": m.get("provider", table.get("provider")),
                                          "base_url": m.get("base_url")})


def _distinct_members(name: str, spec: JudgingSpec) -> None:
    """Two members with the same resolved model keys would judge twice under one identity: refused."""
    seen: dict[tuple, str] = {}
    for member in spec.members():
        key = tuple(member.settings[k] for k in JUDGE_MODEL_KEYS)
        if key in seen:
            raise StudyError(f"study {name!r}: judging.panel members {seen[key]!r} and {member.label!r} resolve "
                             f"to the same judge ({member.settings['provider']}/{member.settings['model']}, "
                             f"temperature {member.settings['temperature']}); change a model key of one, or "
                             "remove it")
        seen[key] = member.label


def _probes(name: str, table) -> tuple[tuple[str, ...], int, tuple[tuple[str, float], ...]]:
    """[judging.probes]: run = [probe, ...] (default every probe), seed, [judging.probes.tolerance]; no
    table: nothing declared (`peerlake probe-judges` then runs every probe at the default tolerances)."""
    from peerlake.judging.probes import PROBES, SELF_PREFERENCE, TOLERANCE_PROBES, default_tolerances

    if table == {}:
        return (), 0, ()
    if not isinstance(table, dict):
        raise StudyError(f"study {name!r}: judging.probes must be a table, e.g. [judging.probes] run = [\"length\"]")
    _no_unknown(name, "judging.probes.", table, {"run", "seed", "tolerance"})
    run = table.get("run", list(PROBES))
    if not isinstance(run, list) or (bad := sorted(set(map(str, run)) - set(PROBES))):
        raise StudyError(f"study {name!r}: judging.probes.run = {run!r}"
                         f"{' names ' + ', '.join(bad) if isinstance(run, list) else ''}; list probes of: "
                         f"{', '.join(PROBES)}")
    seed = table.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise StudyError(f"study {name!r}: judging.probes.seed must be a whole number >= 0")
    tolerances = table.get("tolerance", {})
    if not isinstance(tolerances, dict):
        raise StudyError(f"study {name!r}: judging.probes.tolerance must be a table, e.g. length = 0.1")
    dimensions = default_tolerances()
    for key, value in tolerances.items():
        probe, _, dim = key.partition(".")
        if probe not in TOLERANCE_PROBES or (dim and probe != SELF_PREFERENCE and dim not in dimensions):
            raise StudyError(f"study {name!r}: judging.probes.tolerance.{key}: name a probe "
                             f"({', '.join(TOLERANCE_PROBES)}) or probe.dimension ({', '.join(dimensions)}; "
                             "self_preference.<quality metric>)")
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise StudyError(f"study {name!r}: judging.probes.tolerance.{key} must be a number >= 0")
    return (tuple(dict.fromkeys(map(str, run))), seed,
            tuple(sorted((k, float(v)) for k, v in tolerances.items())))


# [judging.require]: the judge card's minimum κ against human labels and test–retest α, the largest
# position-probe shift, and what a failing judge's rows get (gate judge_card_checks). [judging.require.<judge>]
# sets them for one judge (its keys over the table's, on_fail included), e.g. a lower κ for flaws, whose
# validity calls people agree on less. Whether a judge's card will have human labels is not known here (the
# labels are imported into the lake, not declared by the study): a requirement with none is "not measured"
# at the build, and fails as the study's on_fail says (block or flag), never passes. What parse can know
# it refuses: a table for a judge that does not exist or that the study does not run.
REQUIRE_THRESHOLDS = ("kappa_min", "retest_alpha_min", "position_shift_max")
REQUIRE_ON_FAIL = ("block", "flag")
REQUIRE_KEYS = (*REQUIRE_THRESHOLDS, "on_fail")


def _require(name: str, table, judges: tuple[str, ...] = ()) -> tuple[tuple[str, object], ...]:
    """Sorted (key, value) pairs: the table's thresholds and on_fail, and per judge with a table of its own
    (judge, sorted pairs of that judge's whole requirement: the table's keys with its own over them)."""
    if not isinstance(table, dict):
        raise StudyError(f"study {name!r}: judging.require must be a table, e.g. [judging.require] kappa_min = 0.4")
    _no_unknown(name, "judging.require.", table, {*REQUIRE_KEYS, *JUDGES})
    common = _require_table(name, "judging.require", {k: v for k, v in table.items() if k in REQUIRE_KEYS})
    own = {}
    for judge in (j for j in JUDGES if j in table):
        where = f"judging.require.{judge}"
        if not isinstance(table[judge], dict):
            raise StudyError(f"study {name!r}: {where} must be a table, e.g. [{where}] kappa_min = 0.3")
        if judges and judge not in judges:
            raise StudyError(f"study {name!r}: [{where}] requires of a judge the study does not run "
                             f"(judges = [{', '.join(judges)}])")
        _no_unknown(name, where + ".", table[judge], set(REQUIRE_KEYS))
        mine = _require_table(name, where, {k: v for k, v in table.items() if k in REQUIRE_KEYS} | table[judge])
        if not mine:
            raise StudyError(f"study {name!r}: [{where}] sets no threshold ({', '.join(REQUIRE_THRESHOLDS)})")
        own[judge] = mine
    return tuple(sorted({**dict(common), **own}.items()))


def _require_table(name: str, where: str, table: dict) -> tuple[tuple[str, object], ...]:
    for key in REQUIRE_THRESHOLDS:
        v = table.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                              or not (-1 <= v <= 1 if key != "position_shift_max" else v >= 0)):
            raise StudyError(f"study {name!r}: {where}.{key} must be a number "
                             f"{'>= 0' if key == 'position_shift_max' else 'in [-1, 1]'}")
    on_fail = table.get("on_fail", "block")
    if on_fail not in REQUIRE_ON_FAIL:
        raise StudyError(f"study {name!r}: {where}.on_fail must be \"block\" or \"flag\", got {on_fail!r}")
    if not any(k in table for k in REQUIRE_THRESHOLDS):
        return ()
    return tuple(sorted({**{k: float(table[k]) for k in REQUIRE_THRESHOLDS if k in table},
                         "on_fail": on_fail}.items()))


def did_you_mean(unknown: list[str], known: set[str], prefix: str = "") -> str:
    """ "did you mean `samples`? " for the unknown keys with a close known one (difflib), else "": said
    before the list of known keys, which is long and where a typo's fix is hard to spot."""
    import difflib

    close = [m for k in unknown for m in difflib.get_close_matches(k, sorted(known), n=1)]
    return f"did you mean {', '.join(f'`{prefix}{m}`' for m in close)}? " if close else ""


def _no_unknown(name: str, prefix: str, table: dict, known: set[str]) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise StudyError(f"study {name!r}: unknown key(s) {', '.join(prefix + k for k in unknown)}; "
                         f"{did_you_mean(unknown, known, prefix)}"
                         f"known: {', '.join(prefix + k for k in sorted(known))}")
