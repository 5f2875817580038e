"""The runs a study's reviewer systems make: one per (paper, system configuration, sample)."""

from collections.abc import Sequence

from peerlake.reviewing.systems.base import SystemConfig, SystemRun
from peerlake.warehouse import EventLog, PaperIngested


def system_runs(log: EventLog, papers: Sequence[PaperIngested], configs: Sequence[SystemConfig],
                study: str | None = None) -> list[SystemRun]:
    """Every run, paper by paper (a package is loaded once and shared by its runs)."""
    from peerlake.ingest.manuscripts import load_package

    identities = [c.identity() for c in configs]
    runs = []
    for paper in papers:
        package = load_package(log.blobs, paper.package_sha256)
        for cfg, ident in zip(configs, identities, strict=True):
            # the hidden-text defence: the records ingest flagged as not shown on the page are left out
            read = package.without_hidden() if cfg.opts.get("strip_hidden", True) else package
            for k in range(cfg.samples if cfg.covers(paper.paper_id) else 0):
                runs.append(SystemRun(cfg=cfg, system_config=ident, paper_id=paper.paper_id, title=paper.title,
                                      package=read, package_sha256=paper.package_sha256, sample=k,
                                      study=study))
    return runs
