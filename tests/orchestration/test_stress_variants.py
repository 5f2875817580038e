"""One Dagster materialization of `paper_variants` for a study with [stress]: the demo papers ingested by
`manuscripts`, every listed edit recorded as a variant (the paraphrase through the real gateway against a
loopback server that rewrites each paragraph it is sent), the built ones in the study's resolution so its
reviewers read them, the not-built counted by reason in the metadata; a second materialization replays
the calls and records nothing new."""

import json
import re

from dagster import DagsterInstance, materialize

from peerlake.orchestration.assets.experiments import paper_variants
from peerlake.orchestration.assets.ingest import manuscripts
from peerlake.orchestration.resources import LakeResource, ReviewerResource
from peerlake.studies import save_study
from peerlake.studies.files import load_study
from peerlake.studies.resolve import resolve_papers
from peerlake.warehouse.log import EventLog
from tests.judging.support import ScriptedJudgeServer

_PARAGRAPH = re.compile(r"<paragraph (\d+)>\n(.*?)\n</paragraph \1>", re.S)


class Paraphraser(ScriptedJudgeServer):
    """Rewrites each paragraph of a stress_paraphrase request by prefixing it (numbers kept) and passes every
    validation: the model a paraphrase needs, at the network edge."""

    def openai_answer(self, body: dict, number: int) -> dict:
        out = super().openai_answer(body, number)
        title, text = self.schema_title(body), self.prompt(body)
        if title == "stress_paraphrase":
            doc = {"paragraphs": [f"In other words, {p}" for _, p in _PARAGRAPH.findall(text)]}
        elif title == "stress_paraphrase_validate":
            doc = {"rationale": "same content", "same_content": True}
        else:
            return out
        out["choices"][0]["message"]["content"] = json.dumps(doc)
        return out


STUDY = """\
name = "stress-test"
description = "The stress suite's edits on two demo papers."
judges = []

[papers]
corpus = "demo"

[judging]
provider = "openai_compatible"
model = "fake-editor"
base_url = "{url}"

[[reviewers]]
template = "reviewer_scoring"
samples = 2

[stress]
edits = ["remove_main_table", "significance_overlap", "typos", "paraphrase", "prestige_authors"]
paraphrase_max_sections = 1
noise_k = 2.5
"""


def test_paper_variants_builds_the_stress_suite_and_replays(lake, monkeypatch):
    monkeypatch.setenv("PEERLAKE_DEMO_ONLY", "demo-001,demo-003")
    monkeypatch.setenv("PEERLAKE_OPENAI_COMPATIBLE_API_KEY", "sk-test-stress")
    with Paraphraser() as server:
        save_study(EventLog(lake), "stress-test", STUDY.format(url=server.openai_base_url))
        resources = {"lake": LakeResource(root=str(lake.root)), "reviewer": ReviewerResource()}
        instance = DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("studies", ["stress-test"])
        result = materialize([manuscripts, paper_variants], partition_key="stress-test", instance=instance,
                             resources=resources)
        assert result.success
        meta = {e.asset_key.to_user_string(): e.event_specific_data.materialization.metadata
                for e in result.get_asset_materialization_events()}["paper_variants"]
        # 2 papers × 5 edits; demo-001 reports no ± interval, so its significance claim is not built
        assert (meta["stress_variants"].value, meta["stress_built"].value) == (10, 9)
        assert json.loads(meta["stress_not_built_reasons"].value) == {"no_overlapping_intervals": 1}
        assert meta["model_calls_made"].value == 4  # one section each: a rewrite and a validation per paper
        log = EventLog(lake)
        variants = [e for e in log.iter_events("paper_variant") if e.kind == "stress"]
        assert all(e.study == "stress-test" for e in variants)
        study = load_study(log, "stress-test")
        covered = {m.paper_id for m in resolve_papers(log, study).manuscripts}
        assert {e.variant_id for e in variants if e.built} <= covered  # the reviewers read every built one
        assert {"demo-001", "demo-003"} <= covered

        requests, count = server.requests, log.count("paper_variant")
        again = materialize([manuscripts, paper_variants], partition_key="stress-test", instance=instance,
                            resources=resources)
        assert again.success and server.requests == requests and EventLog(lake).count("paper_variant") == count
