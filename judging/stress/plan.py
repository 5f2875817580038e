"""The stress suite's paraphrase calls a run would make now, for `peerlake run --dry-run` (costs.plan): the
builder's own code run against the log instead of a model, as the revision crossover's dry run is.

A rewrite call is always exact (it depends only on the paper). A validation call depends on the rewrite's
answer: exact when the log holds that answer (and none for a rewrite its deterministic check refuses), else
a stand-in of the same shape (the section's own paragraphs as the rewrite), never in the log."""

from collections.abc import Callable
from dataclasses import dataclass, field

from peerlake.ingest.package import ManuscriptPackage
from peerlake.judging.stress.paraphrase import paraphrase, validate_request


class NotInLog(Exception):
    """A call the log does not answer: the dry run makes none."""


@dataclass
class _Dry:
    """What paraphrase() asks of a JudgeContext, answered from the log only."""

    cfg: object
    logged: Callable
    asked: list = field(default_factory=list)

    def call_many(self, requests, _description):
        self.asked.extend(requests)
        return [self.logged(r) or NotInLog("not in the log") for r in requests]


def planned_requests(cfg, logged: Callable, papers: list[tuple[str, ManuscriptPackage]],
                     max_sections: int | None) -> tuple[list, list]:
    """(exact, stand-ins): the paraphrase's requests for `papers`; `logged(req)` is the log's answer or None."""
    dry = _Dry(cfg, logged)
    done = paraphrase(dry, papers, max_sections)
    # a rewrite not in the log leaves the job without rewrites: its validations are not known yet
    standins = [validate_request(cfg, j.paper_id, i, s, [r.text for r in s.records])
                for j in done if j.failed_call is not None and not j.rewrites for i, s in enumerate(j.sections)]
    return dry.asked, standins
