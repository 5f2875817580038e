"""The call index: one small row per call (no texts), newest first, cut into chunks; and the facets the
filters offer, with each chunk's own facet values so a filter skips chunks that cannot match."""

from collections import defaultdict

from peerlake.report.viewer.catalog import Catalog

CHUNK = 500  # calls per index file: ~100 KB, one fetch; 100,000 calls are 200 files
# Facets with few values: each chunk lists the values it holds (a paper facet would repeat the papers).
CHUNK_FACETS = ("paid", "cfgs", "purpose", "model", "status")


def _configs(cat: Catalog, call) -> list[str]:
    """The configurations a call belongs to: its reviewer (or judge-call) configuration, the judge
    configurations of the judgments that name it, the reviewer systems whose runs used it."""
    out = [call.reviewer_config]
    out += [cat.judgments[n].judge_config for n in cat.judged_by.get(call.event_id, ())]
    out += [cat.systems[n].system_config for n, _ in cat.system_of.get(call.event_id, ())]
    return sorted(set(out))


def index_row(cat: Catalog, call) -> dict:
    return {
        "id": call.event_id, "at": call.occurred_at.isoformat(timespec="seconds"), "purpose": call.purpose,
        "step": call.step, "paper": call.subject_id, "sample": call.sample_index,
        "cfgs": _configs(cat, call), "model": f"{call.provider}/{call.model}", "template": call.prompt_template,
        "status": call.status, "attempt": call.attempt, "tin": call.input_tokens, "tout": call.output_tokens,
        "cost": call.cost_usd, "recost": call.recomputed_cost_usd, "ms": round(call.latency_ms),
        "paid": call.study, "replayed": sorted(cat.replayed_in.get(call.event_id, ())),
    }


def index_rows(cat: Catalog) -> list[dict]:
    calls = [c for c in cat.calls.values() if cat.in_scope(c)]
    calls.sort(key=lambda c: (c.occurred_at, c.event_id), reverse=True)
    return [index_row(cat, c) for c in calls]


def chunks(rows: list[dict], size: int = CHUNK) -> list[list[dict]]:
    return [rows[i:i + size] for i in range(0, len(rows), size)]


def _values(row: dict, facet: str) -> list:
    v = row.get(facet)
    if facet == "paid":
        return [v, *row["replayed"]]
    return v if isinstance(v, list) else [v]


def chunk_facets(chunk: list[dict]) -> dict[str, list]:
    out = defaultdict(set)
    for row in chunk:
        for facet in CHUNK_FACETS:
            out[facet].update(v for v in _values(row, facet) if v is not None)
    return {f: sorted(out[f]) for f in CHUNK_FACETS}


def config_labels(cat: Catalog) -> dict[str, str]:
    """configuration -> what it is, for the filter's list (a hash alone says nothing)."""
    labels: dict[str, str] = {}
    for c in cat.calls.values():
        labels.setdefault(c.reviewer_config, f"{c.purpose} · {c.prompt_template or '—'} · {c.provider}/{c.model}")
    for j in cat.judgments:
        labels[j.judge_config] = f"judge {j.judge} ({j.judge_config})"
    for s in cat.systems:
        labels[s.system_config] = f"system {s.system} · {s.provider}/{s.model}"
    return labels


def meta(cat: Catalog, rows: list[dict], size: int = CHUNK) -> dict:
    parts = chunks(rows, size)
    labels = config_labels(cat)
    studies = sorted({v for r in rows for v in _values(r, "paid") if v is not None})
    return {
        "study": cat.study, "n_calls": len(rows), "chunk_size": size,
        "chunks": [chunk_facets(p) for p in parts],
        "facets": {
            "study": studies,
            "paper": sorted({r["paper"] for r in rows if r["paper"] is not None}),
            "cfg": sorted(({"id": c, "label": labels.get(c, c)} for c in {c for r in rows for c in r["cfgs"]}),
                          key=lambda d: (d["label"], d["id"])),
            "purpose": sorted({r["purpose"] for r in rows}),
            "model": sorted({r["model"] for r in rows}),
            "status": sorted({r["status"] for r in rows}),
        },
    }


def matches(row: dict, study: str | None = None, paper: str | None = None, model: str | None = None,
            purpose: str | None = None, status: str | None = None, config: str | None = None) -> bool:
    """The list's filters (the page's viewer.js applies the same ones): a study matches the calls it paid
    for and the ones it replayed; a model matches PROVIDER/MODEL or MODEL; a purpose matches a step too."""
    return ((study is None or row["paid"] == study or study in row["replayed"])
            and (paper is None or row["paper"] == paper)
            and (model is None or model in (row["model"], row["model"].split("/", 1)[-1]))
            and (purpose is None or purpose in (row["purpose"], row["step"]))
            and (status is None or row["status"] == status)
            and (config is None or config in row["cfgs"]))
