"""A lake for the viewer's diff page: the scripted two-judge panel of tests/orchestration/test_judge_panel_marts.py
(t0, the primary, and t07 judge the same 12 reviews; its docstring works every figure by hand) through
`peerlake run` against the loopback server, whose publish keeps build 1; then a second publish that changes
one mart by hand (build 2), so what the page must show is known without the code under test.

The run is shared read-only (tests/shared_lakes.py, "panel-verdict"); a test copies it before a second publish."""

import shutil
from pathlib import Path

import duckdb

from peerlake.audit.builds_diff import key_columns
from peerlake.warehouse import Lake, builds
from tests.orchestration import test_judge_panel_marts as judge_panel
from tests.warehouse.builds_support import publish_sql

# build 2 against build 1: quality_reviews (one row per judged review, 12) loses one human review's row and
# another's MCS changes; fct_llm_calls gains one judge call under a new prompt hash of its template (a copy
# of the first judge call: the event since build 1 that explains both); every other mart keeps its chunks
CHANGED_REVIEW, REMOVED_REVIEW = "human:demo-001-review-1", "human:demo-004-review-1"
NEW_CALL, NEW_HASH = "01ZZZZZZZZZZZZZZZZZZZZZZZZ", "feedbeef" * 8
SECOND_BUILD = f"""update quality_reviews set mcs = 0.25 where review_key = '{CHANGED_REVIEW}';
                   delete from quality_reviews where review_key = '{REMOVED_REVIEW}';
                   insert into fct_llm_calls
                   select * replace ('{NEW_CALL}' as llm_call_id, '{NEW_HASH}' as prompt_hash) from fct_llm_calls
                   where purpose = 'judge_constructiveness_comments' order by llm_call_id limit 1"""


def build_panel(work: Path) -> Path:
    """The panel study run under work/lake (tests/orchestration/test_judge_panel_marts.py), with its build 1."""
    root = judge_panel.build_panel(work)
    assert [r["build_id"] for r in builds.records(Lake(root))] == ["1"]  # the run's publish kept it
    return root


def copy_with_second_build(shared: Path, root: Path) -> Lake:
    """A copy of the panel lake (file times kept: build 1 stays the published file's record), published
    again with SECOND_BUILD and kept as build 2 the way the pipeline keeps one (its marts, audit keys)."""
    shutil.copytree(shared, root)
    lake = Lake(root)
    first = builds.records(lake)[-1]
    publish_sql(lake, SECOND_BUILD)
    assert builds.keep_build(lake, list(first["marts"]), key_columns, first["chain_head_seq"]) is not None
    return lake


def system_names(db: Path) -> dict[str, str]:
    """reviewer configuration -> COLD (temperature 0) or WARM, and human -> human (as the panel test names them)."""
    with duckdb.connect(str(db), read_only=True) as con:
        configs = con.execute("""select distinct reviewer_config, json_extract_string(params_json, '$.temperature')
                                 from fct_llm_calls where purpose not like 'judge%'""").fetchall()
    return {c: ("COLD" if float(t) == 0 else "WARM") for c, t in configs} | {"human": "human"}
