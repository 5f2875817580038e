"""One call, one judged review, one system run: what each detail file of the viewer holds, from the
published rows (report.viewer.catalog) and the texts they name in the blob store."""

import json
from functools import cached_property

from peerlake.judging.reviews import JudgedReview, external_sections, human_sections, peerlake_sections, system_sections
from peerlake.judging.spans import locate_span
from peerlake.llm_calls.providers import ProviderError, parse_recorded
from peerlake.llm_calls.types import LlmResult, Usage
from peerlake.report.viewer.catalog import Call, Catalog
from peerlake.warehouse.blobs import BlobCorrupted, BlobStore
from peerlake.warehouse.redact import redact_stored

MAX_RAW = 200_000  # characters of a raw response body shown (a manuscript-sized answer is cut, and says so)
SPAN_KEYS = ("text", "quote", "anchor_quote", "claim_text")  # the verbatim fields judges' units carry
REVIEW_SOURCES = ("human:", "peerlake:", "external:")  # the review keys judging.reviews gives


def blob_text(blobs: BlobStore, sha: str | None) -> tuple[str | None, str | None]:
    """(text, problem): a missing or unreadable blob is said, not hidden."""
    if not sha:
        return None, None
    try:
        return blobs.get_text(sha), None
    except FileNotFoundError:
        return None, f"blob {sha} is missing from the blob store"
    except (OSError, ValueError, BlobCorrupted) as exc:
        return None, f"blob {sha} could not be read: {exc}"


def answer_text(call: Call, raw: str | None) -> tuple[str | None, str | None]:
    """(text, problem): the answer's text as the gateway read it from the response body, read again by
    the provider's own parser (the marts keep the body's blob key, not a second copy of its text)."""
    if call.status != "ok" or raw is None:
        return None, None
    try:
        parsed = parse_recorded(call.provider, json.loads(raw))
    except (ValueError, ProviderError) as exc:
        return None, f"the answer's text could not be read from its response body: {str(exc)[:200]}"
    return redact_stored(parsed.text) or "", None


def _content(content) -> str:
    """A message's content as text: parts that are not text (images) are named, not shown."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append(part["text"])
            else:
                kind = part.get("type", "part") if isinstance(part, dict) else type(part).__name__
                out.append(f"[{kind} not shown]")
        return "\n".join(out)
    return json.dumps(content, ensure_ascii=False)


def _parse(call: Call, text: str | None, schema) -> dict:
    """What the callers read from the answer: the JSON object (as LlmResult.json_object finds it)."""
    if call.status != "ok":
        return {"ok": False, "note": "no answer (the attempt failed)"}
    if text is None:
        return {"ok": False, "note": "the answer's text is not readable"}
    result = LlmResult(request_key=call.request_key, event_id=call.event_id, text=text, parsed=None,
                       usage=Usage(), cost_usd=call.cost_usd, replayed=False)
    doc = result.json_object()
    if doc is None:
        return {"ok": False, "note": "no JSON object in the answer" + ("" if schema else " (no schema was asked)")}
    return {"ok": True, "value": json.dumps(doc, indent=1, ensure_ascii=False)}


def _error(call: Call) -> str | None:
    return " ".join(x for x in (call.error_type, call.error_message) if x) or None


def call_detail(cat: Catalog, blobs: BlobStore, call_id: str) -> dict:
    call = cat.calls[call_id]
    request_text, request_problem = blob_text(blobs, call.request_sha256)
    request = {}
    if request_text is not None:
        try:
            request = json.loads(request_text)
        except ValueError:
            request_problem = "the request blob is not JSON"
    messages = [{"role": str(m.get("role", "?")), "content": _content(m.get("content"))}
                for m in request.get("messages", []) if isinstance(m, dict)]
    raw, raw_problem = blob_text(blobs, call.response_sha256)
    text, text_problem = answer_text(call, raw)
    if raw is not None and len(raw) > MAX_RAW:
        raw = raw[:MAX_RAW] + f"\n… cut at {MAX_RAW:,} of {len(raw):,} characters"
    usage = {k: getattr(call, k) for k in ("input_tokens", "cached_input_tokens", "cache_write_tokens",
                                           "output_tokens", "reasoning_tokens")}
    return {
        "id": call.event_id, "at": call.occurred_at.isoformat(), "request_key": call.request_key,
        "purpose": call.purpose, "step": call.step, "round": call.round,
        "paper": call.subject_id, "sample": call.sample_index, "reviewer_config": call.reviewer_config,
        "provider": call.provider, "model": call.model, "endpoint": call.endpoint,
        "template": call.prompt_template, "prompt_hash": call.prompt_hash, "params": call.params_json,
        "response_schema": request.get("response_schema"), "status": call.status, "attempt": call.attempt,
        "error": _error(call), "finish_reason": call.finish_reason, "usage": usage, "cost_usd": call.cost_usd,
        "cost_status": call.cost_status, "price_table_version": call.price_table_version,
        "recomputed_cost_usd": call.recomputed_cost_usd, "recomputed_cost_status": call.recomputed_cost_status,
        "is_duplicate_success": call.is_duplicate_success, "latency_ms": call.latency_ms,
        "paid_by": call.study, "replayed_in": sorted(cat.replayed_in.get(call.event_id, ())),
        "dagster_run_id": call.dagster_run_id, "asset": call.asset,
        "messages": messages, "request_problem": request_problem,
        "response": text, "response_problem": text_problem, "raw_response": raw, "raw_problem": raw_problem,
        "parse": _parse(call, text, request.get("response_schema")),
        "attempts": [{"id": e.event_id, "at": e.occurred_at.isoformat(), "attempt": e.attempt, "status": e.status,
                      "error": _error(e), "ms": round(e.latency_ms)}
                     for e in cat.by_request.get(call.request_key, [call])],
        "judgments": [_judgment_ref(cat, n) for n in cat.judged_by.get(call.event_id, ())],
        "systems": [{"n": n, "system": cat.systems[n].system, "index": i,
                     "step": cat.systems[n].steps[i].get("system_step")}
                    for n, i in cat.system_of.get(call.event_id, ())],
    }


class Reviews:
    """The judged reviews: each review key judgments name, its text as each judge read it (rebuilt from
    the review's body blob, answer or normalized review, as judging.reviews builds it), and where each
    unit the judge extracted sits in that text."""

    def __init__(self, cat: Catalog, blobs: BlobStore):
        self.cat, self.blobs = cat, blobs

    @cached_property
    def by_key(self) -> dict[str, list]:
        """review key -> the judgments of it, in order (dicts keep the first-seen order of the keys)."""
        out: dict[str, list] = {}
        for j in self.cat.judgments:
            if j.subject_key.startswith(REVIEW_SOURCES):
                out.setdefault(j.subject_key, []).append(j)
        return out

    @cached_property
    def keys(self) -> list[str]:
        return list(self.by_key)

    @cached_property
    def _system_reviews(self) -> dict[str, str | None]:
        return {s.system_review_id: s.review_json for s in self.cat.systems}

    def text(self, key: str) -> JudgedReview | None:
        """The review as judging.reviews reads it; None when its text is not in the lake."""
        j = self.by_key[key][0]
        source, event = j.review_source, j.review_event_id
        if source is None:  # no review in the published marts holds this key
            return None
        if source in ("human", "external"):
            body, _ = blob_text(self.blobs, j.review_body_sha256)
            try:
                doc = json.loads(body) if body is not None else None
            except ValueError:
                doc = None
            if not isinstance(doc, dict):
                return None
            sections = (human_sections(doc) if source == "human"
                        else external_sections(doc, annotated=j.is_review_annotated))
        elif event in self.cat.calls:  # a template review: the answer of its request
            call = self.cat.calls[event]
            answer, _ = answer_text(call, blob_text(self.blobs, call.response_sha256)[0])
            if answer is None:
                return None
            sections = peerlake_sections(answer)
        elif event in self._system_reviews:
            sections = system_sections(self._system_reviews[event] or "")
        else:
            return None
        return JudgedReview(review_key=key, paper_id=j.paper_id or "", source=source, system=j.review_system or "",
                            sample_index=j.review_sample_index, sections=sections, event_id=event or "")

    def row(self, n: int) -> dict:
        key = self.keys[n]
        js = self.by_key[key]
        return {"n": n, "review_key": key, "paper": js[0].paper_id, "judges": sorted({j.judge for j in js}),
                "system": js[0].review_system, "found": js[0].review_event_id is not None}

    def detail(self, n: int) -> dict:
        key = self.keys[n]
        review = self.text(key)
        out = {**self.row(n), "found": review is not None, "views": []}
        for j in sorted(self.by_key[key], key=lambda j: (j.judge, j.step, j.repeat, j.judgment_id)):
            view = {"judge": j.judge, "step": j.step, "judge_config": j.judge_config, "repeat": j.repeat,
                    "status": j.status, "null_reason": j.null_reason, "recorded_at": j.recorded_at.isoformat(),
                    "calls": [i for i in j.call_ids if i in self.cat.calls], "text": None, "units": []}
            if review is not None:
                text = review.for_judge(j.judge).text
                view["text"] = text
                view["units"] = _place_units(json.loads(j.units_json or "[]"), text)
            out["views"].append(view)
        return out


def _place_units(units: list, text: str) -> list[dict]:
    """[{start, end, label, found}] per unit: at its recorded `start` when the text is there, else
    where its verbatim span is found (judging.spans), else listed as not found."""
    placed, at = [], 0
    for u in units if isinstance(units, list) else []:
        if not isinstance(u, dict):
            continue
        span = next((u[k] for k in SPAN_KEYS if isinstance(u.get(k), str) and u[k].strip()), None)
        label = " · ".join(str(u[k]) for k in ("role", "aspect", "polarity", "kind", "section", "stance")
                           if u.get(k) is not None) or "unit"
        start = u.get("start")
        if span is None:
            continue
        if isinstance(start, int) and text[start:start + len(span)] == span:
            hit = (start, start + len(span))
        else:
            v = locate_span(span, text, at)
            hit = None if v is None else (v.start, v.end)
        if hit:
            at = hit[1]
        placed.append({"start": hit[0] if hit else None, "end": hit[1] if hit else None, "label": label,
                       "span": span})
    return placed


def _judgment_ref(cat: Catalog, n: int) -> dict:
    j = cat.judgments[n]
    return {"judge": j.judge, "step": j.step, "judge_config": j.judge_config, "subject_key": j.subject_key,
            "status": j.status}


def system_detail(cat: Catalog, n: int) -> dict:
    """A system run as its chain of steps, in the order made, each with the call that answered it."""
    run = cat.systems[n]
    steps = []
    for i, s in enumerate(run.steps):
        answer = cat.calls.get(s.get("llm_call_id") or "")
        steps.append({"index": i, "step": s.get("system_step"), "round": s.get("system_round"),
                      "member": s.get("member"), "call": answer.event_id if answer else None,
                      "recorded_call": s.get("recorded_llm_call_id"),
                      "purpose": answer.purpose if answer else None,
                      "cost_usd": answer.cost_usd if answer else None,
                      "ms": round(answer.latency_ms) if answer else None,
                      "failed_attempts": s.get("n_error_attempts") or 0})
    return {"n": n, **system_row(cat, n), "null_reason": run.null_reason, "score_scale": run.score_scale,
            "confidence": run.confidence, "options": run.options_json, "review": run.review_json, "steps": steps}


def system_row(cat: Catalog, n: int) -> dict:
    run = cat.systems[n]
    return {"n": n, "system": run.system, "system_config": run.system_config, "paper": run.paper_id,
            "sample": run.sample_index, "model": f"{run.provider}/{run.model}", "status": run.status,
            "score": run.score, "steps": len(run.steps), "at": run.recorded_at.isoformat(), "study": run.study}
