"""Labels entered in the browser reach the judge cards at the next build: on a copy of the scripted judge
panel's lake (tests/orchestration/test_judge_panel_marts.py: the constructiveness judge rates each review's one
comment r on every dimension, t0 (primary) r = 2 for a human review, 1 for COLD's, 0 for WARM's; t07 1, 2, 0),
two annotators label whole reviews' actionability through the page's own code (LabelSession.enter, as the
server's POST does), one relabels, a third labels with the judge shown; then a real dbt build of the cards.
Every κ, α and ceiling below is worked by hand from the labels the test chose."""

import json
import shutil
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from peerlake.report.viewer.label import LabelSession
from peerlake.report.viewer.site import Site
from peerlake.warehouse import Lake
from peerlake.warehouse.events import new_event_id
from tests import shared_lakes
from tests.dbt.test_judge_cards import build_marts
from tests.orchestration.test_judge_panel_marts import STUDY
from tests.viewer.diff_lake import build_panel, system_names

DIM = "actionability"
# Whole-review labels: h1, h2 two human reviews, c1 one of COLD's, w1 one of WARM's. t0's label of each (its one
# comment's rating, the majority of one) is 2, 2, 1, 0.
ANN_A = {"h1": "2", "h2": "1", "c1": "1", "w1": "0"}
ANN_B = {"h1": "2", "h2": "0", "c1": "0"}  # h2 is relabelled "2" later: the newest counts
RELABEL = ("h2", "2")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    shared = shared_lakes.built_once(tmp_path_factory, "panel-verdict", build_panel)
    work = tmp_path_factory.mktemp("entered-cards")
    root = work / "lake"
    shutil.copytree(shared, root)
    lake = Lake(root)
    with duckdb.connect(str(lake.duckdb_path), read_only=True) as con:  # the published build: t0 and t07
        config_labels = dict(con.execute("select judge_config, judge_label from dim_judge_configs "
                                         "where study_id = ?", [STUDY]).fetchall())
    before = _cards(lake.duckdb_path, config_labels)
    site = Site(work / "site", lake, lake.duckdb_path, STUDY)
    names = system_names(lake.duckdb_path)

    def session(annotator: str, blind: bool = True) -> LabelSession:
        return LabelSession(site.reviews, site.log, STUDY, "constructiveness", annotator, 12, DIM, blind=blind)

    items = session("ann-a").items  # all 12 judged reviews
    by_who: dict[str, list[str]] = {}
    for key, item in sorted(items.items()):
        by_who.setdefault("human" if key.startswith("human:") else names[item.system], []).append(key)
    keys = {"h1": by_who["human"][0], "h2": by_who["human"][1], "c1": by_who["COLD"][0], "w1": by_who["WARM"][0]}
    for annotator, labels in (("ann-a", ANN_A), ("ann-b", ANN_B)):
        s = session(annotator)
        for name, label in labels.items():
            s.enter(json.dumps({"item": keys[name], "label": label}).encode())
    log = site.log
    # a relabel, as the log may hold one: the same person, item and dimension, a later label
    (first,) = [e for e in log.iter_events("human_label_entered")
                if e.annotator == "ann-b" and e.item_key == keys[RELABEL[0]]]
    log.append(replace(first, event_id=new_event_id(), occurred_at=first.occurred_at + timedelta(seconds=1),
                       label=RELABEL[1], mapped_json=json.dumps({DIM: int(RELABEL[1])})))
    session("ann-c", blind=False).enter(json.dumps({"item": keys["h1"], "label": "1"}).encode())
    log.seal()
    log.close()
    db = build_marts(root, work)
    return before, _cards(db, config_labels), db


def _cards(db: Path, config_labels: dict) -> list[dict]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from judge_cards where study_id = ?", [STUDY])
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    return [{**r, "judge_label": config_labels[r["judge_config"]]} for r in rows]


def _row(cards, label, dataset, statistic) -> dict:
    (row,) = [r for r in cards if (r["judge_label"], r["dataset"], r["dimension"], r["statistic"]) ==
              (label, dataset, DIM, statistic)]
    return row


def test_the_card_had_no_human_labels_before_and_has_the_entered_ones_after(built):
    before, after, _ = built
    assert {r["dataset"] for r in before if r["statistic"].startswith("human")} == {None}  # 'unvalidated' only
    assert not any(r["null_reason"] == "no_human_labels" for r in after if r["judge_label"] == "t0")
    # blind and shown labels are never pooled: one card row each
    assert {r["dataset"] for r in after if r["statistic"] == "human_kappa"} == {"entered_blind", "entered_judge_shown"}


def test_judge_against_each_person_and_the_ceiling(built):
    _, cards, _ = built
    # (t0, person), every person's label its own pair, b's h2 the relabel "2":
    #   a: h1 (2,2) h2 (2,1) c1 (1,1) w1 (0,0);  b: h1 (2,2) h2 (2,2) c1 (1,0)     n = 7, 4 reviews
    # quadratic κ: observed Σw·p = (1 + 1)/7; margins judge 0:1 1:2 2:4, people 0:2 1:2 2:3 (of 7):
    # Σw·p_i·q_j = (1·(2·1 + 3·4) + 2·(2·1 + 3·1) + 4·(2·4 + 2·1))/49 = 64/49; κ = 1 − (2/7)/(64/49) = 25/32
    kappa = _row(cards, "t0", "entered_blind", "human_kappa")
    assert kappa["estimate"] == pytest.approx(25 / 32)
    assert (kappa["n"], kappa["n_reviews"], kappa["measurement_level"]) == (7, 4, "ordinal")
    assert kappa["ci_low"] <= kappa["estimate"] <= kappa["ci_high"] and "entered" in kappa["method"]
    assert kappa["label_mapping"] is None  # the judge's own choices: no mapping made them
    # ordinal α: values 0:3 1:4 2:7 (n 14); δ(0,1) = 3.5², δ(1,2) = 5.5², δ(0,2) = (14 − 5)² = 81;
    # D_o = 2(30.25 + 12.25)/14 = 85/14; D_e = 2(12·12.25 + 28·30.25 + 21·81)/182 = 5390/182
    assert _row(cards, "t0", "entered_blind", "human_alpha")["estimate"] == pytest.approx(1 - (85 / 14) / (5390 / 182))
    # the ceiling, a and b on the items both labelled: h1 (2,2) h2 (1,2) c1 (1,0); values 0:1 1:2 2:3 (n 6);
    # δ(0,1) = 1.5², δ(1,2) = 2.5², δ(0,2) = 4²; D_o = 2(6.25 + 2.25)/6 = 17/6; D_e = 2(2·2.25 + 6·6.25 + 3·16)/30 = 6
    ceiling = _row(cards, "t0", "entered_blind", "human_human_alpha")
    assert ceiling["estimate"] == pytest.approx(1 - 17 / 36) and (ceiling["n"], ceiling["n_reviews"]) == (3, 3)


def test_labels_with_the_judge_shown_are_their_own_row(built):
    _, cards, _ = built
    shown = _row(cards, "t0", "entered_judge_shown", "human_kappa")
    assert shown["n"] == 1 and shown["n_reviews"] == 1  # c's one label: h1 "1" against t0's 2
    ceiling = _row(cards, "t0", "entered_judge_shown", "human_human_alpha")
    assert ceiling["null_reason"] == "fewer_than_2_annotators"


def test_between_the_two_judges_an_item_two_people_labelled_counts_once(built):
    _, cards, _ = built
    # t0 and t07 on h1 h2 c1 w1: (2,1) (2,1) (1,2) (0,0), one pair per item whoever labelled it
    (between,) = [r for r in cards if (r["dataset"], r["statistic"]) == ("entered_blind", "judge_judge_alpha")]
    assert between["n"] == 4
    # ordinal α: values 0:2 1:3 2:3 (n 8); δ(0,1) = 2.5², δ(1,2) = 3², δ(0,2) = (8 − 2.5)²;
    # D_o = 2·3·9/8; D_e = 2(6·6.25 + 9·9 + 6·30.25)/56
    assert between["estimate"] == pytest.approx(1 - (54 / 8) / (2 * (37.5 + 81 + 181.5) / 56))
