"""The report's judge-panel section (#45), "Does the verdict survive the judge?": rendered from the panel marts
(computed here by metrics.quality.panel from the scripted two-member panel of
tests/orchestration/test_judge_panel_marts.py: four papers, MCS of human / cfgA / cfgB = 1.0 / 0.5 / 0.0
under t0 and 0.5 / 1.0 / 0.0 under t07, so τ = 1/3, exactly (cfgA, human) flips, α = 25/48); absent for a
study with one configuration per judge; a note, not a crash, for a missing mart; every string escaped."""

import duckdb
import pandas as pd

from peerlake.metrics.quality import panel
from peerlake.report import render_report
from peerlake.report.build import content_hash

HEADING = "<h2>Does the verdict survive the judge?</h2>"
MCS = {"t0": {"human": 1.0, "cfgA": 0.5, "cfgB": 0.0}, "t07": {"human": 0.5, "cfgA": 1.0, "cfgB": 0.0}}
PAPERS = ["P01", "P02", "P03", "P04"]


def _scores(study: str, model_b: str = "m") -> pd.DataFrame:
    return pd.DataFrame({"study_id": [study] * 2, "reviewer_config": ["cfgA", "cfgB"],
                         "prompt_template": ["reviewer_scoring"] * 2, "model": ["m", model_b],
                         "paper_id": ["P01", "P01"], "overall_score": [5.0, 6.0], "is_parsed": [True, True]})


def _rows(study: str, values: dict[str, dict[str, float]]) -> pd.DataFrame:
    """metrics.quality.panel's long input: one review per paper and system, scored by each configuration."""
    rows = []
    for label, by_system in values.items():
        for system, value in by_system.items():
            for paper in PAPERS:
                rows.append({"study_id": study, "judge": "constructiveness", "judge_config": f"jc-{label}",
                             "judge_label": label, "metric": "mcs", "review_key": f"{system}-{paper}",
                             "paper_id": paper, "source": "human" if system == "human" else "peerlake",
                             "system": None if system == "human" else system, "pool_key": None, "value": value})
    return pd.DataFrame(rows)


def _configs(study: str, names: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"study_id": study, "judge_config_id": [f"{study}|jc-{n}" for n in names],
                         "judge": "constructiveness", "judge_config": [f"jc-{n}" for n in names],
                         "judge_label": names, "judge_provider": "openai", "judge_model": "gpt-4.1-mini",
                         "is_primary": [i == 0 and len(names) > 1 for i in range(len(names))],
                         "is_headline": [i == 0 for i in range(len(names))], "n_subjects": 12})


def _marts(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {"judge_rankings": panel.system_means(rows),
            "judge_ranking_agreement": panel.ranking_agreement(rows, n_resamples=200, seed=42),
            "judge_ranking_flips": panel.ranking_flips(rows), "judge_panel_agreement": panel.panel_agreement(rows),
            "judge_pair_differences": panel.judge_pair_differences(rows, n_resamples=200, seed=42)}


def _warehouse(path, tables: dict[str, pd.DataFrame]):
    with duckdb.connect(str(path)) as con:
        for name, df in tables.items():
            con.register("df", df)
            con.execute(f"create table {name} as select * from df")
            con.unregister("df")
    return path


def _lake(path, panel_study: dict[str, dict[str, float]] = MCS, model_b: str = "m",
          skip: tuple[str, ...] = ()) -> object:
    """Study "p" with the two-member panel, study "s" with one configuration ("default") per judge."""
    rows = pd.concat([_rows("p", panel_study), _rows("s", {"default": MCS["t0"]})], ignore_index=True)
    configs = pd.concat([_configs("p", list(panel_study)), _configs("s", ["default"])], ignore_index=True)
    tables = {"fct_ai_review_scores": pd.concat([_scores("p", model_b), _scores("s")]),
              "dim_judge_configs": configs, **_marts(rows)}
    return _warehouse(path, {k: v for k, v in tables.items() if k not in skip})


def _section(page: str) -> str:
    return page.split(HEADING, 1)[1].split("<h2>", 1)[0]


def test_a_study_with_one_configuration_per_judge_has_no_section_and_an_unchanged_page(tmp_path):
    with_panel = render_report(_lake(tmp_path / "a.duckdb"), "s")
    assert HEADING not in with_panel and "judge_rankings" not in with_panel
    without = render_report(_warehouse(tmp_path / "b.duckdb", {"fct_ai_review_scores": _scores("s")}), "s")
    assert content_hash(with_panel) == content_hash(without)


def test_the_panel_shows_both_rankings_tau_the_flip_and_alpha(tmp_path):
    page = render_report(_lake(tmp_path / "w.duckdb"), "p")
    assert page.count(HEADING) == 1
    assert page.index("Review quality against the human reviews") < page.index(HEADING)  # next to quality
    body = _section(page)
    assert "<h3>Judge constructiveness</h3>" in body and "<h4>Constructiveness: MCS</h4>" in body
    assert "<b>t0</b> (openai/gpt-4.1-mini, primary, the headline tables read it)" in body
    # systems × configurations, ordered by the primary's ranking: human 1st under t0, cfgA 1st under t07
    cfg_a = "reviewer_scoring · m · cfgA"
    assert ("<tr><td>human</td><td>1.000 (n=4)</td><td>1 of 3</td><td>0.500 (n=4)</td><td>2 of 3</td></tr>"
            f"<tr><td>{cfg_a}</td><td>0.500 (n=4)</td><td>2 of 3</td><td>1.000 (n=4)</td><td>1 of 3</td></tr>") in body
    assert "<th>t0: mean (n papers)</th><th>t0: rank</th><th>t07: mean (n papers)</th>" in body
    # τ-b with its interval, systems and papers beside it
    assert "<td>t0 vs t07</td><td>0.333 [0.333, 0.333]</td><td>3</td><td>4</td><td>200</td>" in body
    # the one flipped pair, first and flagged; the two others after it, not flagged
    flips = body.split("difference under the second</th></tr>", 1)[1].split("</table>", 1)[0]
    first, *rest = flips.split("</tr>")[:3]
    assert "<b>⚠ flipped</b>" in first and f"{cfg_a} − human" in first
    assert "<td>-0.500 (n=4 papers)</td><td>0.500 (n=4 papers)</td>" in first
    assert all("same sign" in r for r in rest) and flips.count("flipped") == 1
    assert "1 of 3 system pair(s) flip" in body
    # α and r on the same 12 reviews
    assert "<td>t0 vs t07</td><td>12</td><td>0.521</td><td>0.500 [" in body
    # fewer than 10 papers: the warning, and the paired differences give means only, said in words
    assert "Small sample:</b> these figures rest on 4 papers" in body
    assert "fewer than 10 papers: means only" in body


def test_a_missing_mart_is_a_note_not_a_crash(tmp_path):
    page = render_report(_lake(tmp_path / "a.duckdb", skip=("judge_panel_agreement",)), "p")
    body = _section(page)
    assert ("Agreement on the same reviews: not shown — the warehouse's <code>judge_panel_agreement</code> is not "
            "there") in body
    assert "<td>0.333 [0.333, 0.333]</td>" in body and "<b>⚠ flipped</b>" in body  # the rest is shown
    # no rankings at all: the configurations still say it is a panel, and the note says what is missing
    page = render_report(_lake(tmp_path / "b.duckdb", skip=("judge_rankings",)), "p")
    body = _section(page)
    assert "<code>judge_rankings</code> is not there" in body and "<td>0.333 [0.333, 0.333]</td>" in body
    # an old warehouse without any panel mart: no section, no crash
    assert HEADING not in render_report(_warehouse(tmp_path / "c.duckdb", {"fct_ai_review_scores": _scores("p")}),
                                        "p")


def test_a_null_tau_says_why_in_words(tmp_path):
    same = {"t0": MCS["t0"], "t07": {"human": 0.5, "cfgA": 0.5, "cfgB": 0.5}}  # t07 ranks all equal
    body = _section(render_report(_lake(tmp_path / "w.duckdb", same), "p"))
    assert "<td>—</td><td>3</td><td>4</td>" in body
    assert "a configuration ranks every system equal: τ is undefined" in body


def test_hostile_strings_stay_escaped(tmp_path):
    evil = "<script>alert(1)</script>"
    hostile = {"t0": MCS["t0"], evil: MCS["t07"]}
    body = _section(render_report(_lake(tmp_path / "w.duckdb", hostile, model_b=evil), "p"))
    assert "<script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body  # as a configuration and in a system's label
    assert "reviewer_scoring · &lt;script&gt;alert(1)&lt;/script&gt; · cfgB" in body


def test_the_terminal_shows_the_rankings_side_by_side(tmp_path, monkeypatch, capsys):
    from peerlake import console

    _lake(tmp_path / "peerlake.duckdb")
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path))
    monkeypatch.setattr(console, "console", console.Console(width=200))
    console.print_judge_panel("p")
    out = capsys.readouterr().out
    assert "Does the verdict survive the judge? constructiveness" in out and "t07" in out
    human = next(line for line in out.splitlines() if " human " in line)
    assert "1 (n=4) · 1 of 3" in human and "0.5 (n=4) · 2 of 3" in human
    console.print_judge_panel("s")  # one configuration: nothing
    assert capsys.readouterr().out == ""
