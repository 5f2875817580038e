"""One call, one judged review, one system run: what each detail file of the viewer holds."""

import json
from functools import cached_property

from judging import reviews as judged
from judging.spans import locate_span
from llm_calls.types import LlmResult, Usage
from report.viewer.catalog import Catalog
from warehouse import EventLog

MAX_RAW = 200_000  # characters of a raw response body shown (a manuscript-sized answer is cut, and says so)
REVIEW_SOURCES = ("human:", "peerlake:", "external:")
SPAN_KEYS = ("text", "quote", "anchor_quote", "claim_text")  # the verbatim fields judges' units carry


def _blob_text(log: EventLog, sha: str | None) -> tuple[str | None, str | None]:
    """(text, problem): a missing or unreadable blob is said, not hidden."""
    if not sha:
        return None, None
    try:
        return log.blobs.get_text(sha), None
    except FileNotFoundError:
        return None, f"blob {sha} is missing from the blob store"
    except (OSError, ValueError) as exc:
        return None, f"blob {sha} could not be read: {exc}"


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


def _parse(call, schema) -> dict:
    """What the callers read from the answer: the JSON object (as LlmResult.json_object finds it)."""
    if call.status != "ok":
        return {"ok": False, "note": "no answer (the attempt failed)"}
    result = LlmResult(request_key=call.request_key, event_id=call.event_id, text=call.response_text or "",
                       parsed=None, usage=Usage(), cost_usd=call.cost_usd, replayed=False)
    doc = result.json_object()
    if doc is None:
        return {"ok": False, "note": "no JSON object in the answer" + ("" if schema else " (no schema was asked)")}
    return {"ok": True, "value": json.dumps(doc, indent=1, ensure_ascii=False)}


def call_detail(cat: Catalog, log: EventLog, call_id: str) -> dict:
    call = cat.calls[call_id]
    request_text, request_problem = _blob_text(log, call.request_sha256)
    request = {}
    if request_text is not None:
        try:
            request = json.loads(request_text)
        except ValueError:
            request_problem = "the request blob is not JSON"
    messages = [{"role": str(m.get("role", "?")), "content": _content(m.get("content"))}
                for m in request.get("messages", []) if isinstance(m, dict)]
    raw, raw_problem = _blob_text(log, call.response_sha256)
    if raw is not None and len(raw) > MAX_RAW:
        raw = raw[:MAX_RAW] + f"\n… cut at {MAX_RAW:,} of {len(raw):,} characters"
    attempts = sorted(cat.by_request.get(call.request_key, [call]), key=lambda e: (e.occurred_at, e.event_id))
    usage = {k: getattr(call, k) for k in ("input_tokens", "cached_input_tokens", "cache_write_tokens",
                                           "output_tokens", "reasoning_tokens")}
    return {
        "id": call.event_id, "at": call.occurred_at.isoformat(), "request_key": call.request_key,
        "purpose": call.purpose, "step": getattr(call, "step", None), "round": getattr(call, "round", None),
        "paper": call.subject_id, "sample": call.sample_index, "reviewer_config": call.reviewer_config,
        "provider": call.provider, "model": call.model, "endpoint": getattr(call, "endpoint", None),
        "template": call.prompt_template, "prompt_hash": call.prompt_hash, "params": call.params_json,
        "response_schema": request.get("response_schema"), "status": call.status, "attempt": call.attempt,
        "error": " ".join(x for x in (call.error_type, call.error_message) if x) or None,
        "finish_reason": call.finish_reason, "usage": usage, "cost_usd": call.cost_usd,
        "cost_status": call.cost_status, "price_table_version": call.price_table_version,
        **cat.recomputed.get(call.event_id, {}), "latency_ms": call.latency_ms,
        "paid_by": call.study, "replayed_in": sorted(cat.replayed_in.get(call.event_id, ())),
        "dagster_run_id": getattr(call, "dagster_run_id", None), "asset": getattr(call, "asset", None),
        "messages": messages, "request_problem": request_problem,
        "response": call.response_text, "raw_response": raw, "raw_problem": raw_problem,
        "parse": _parse(call, request.get("response_schema")),
        "attempts": [{"id": e.event_id, "at": e.occurred_at.isoformat(), "attempt": e.attempt, "status": e.status,
                      "error": " ".join(x for x in (e.error_type, e.error_message) if x) or None,
                      "ms": round(e.latency_ms)} for e in attempts],
        "judgments": [_judgment_ref(cat, n) for n in cat.judged_by.get(call.event_id, ())],
        "systems": [{"n": n, "system": cat.systems[n].system, "index": i,
                     "step": json.loads(cat.systems[n].calls_json)[i].get("step")}
                    for n, i in cat.system_of.get(call.event_id, ())],
    }


class Reviews:
    """The judged reviews: each review key judgments name, its text as each judge read it, and where
    each unit the judge extracted sits in that text."""

    def __init__(self, cat: Catalog, log: EventLog):
        self.cat, self.log = cat, log

    @cached_property
    def by_key(self) -> dict[str, list]:
        """review key -> the judgments of it, in log order (dicts keep the first-seen order of the keys)."""
        out: dict[str, list] = {}
        for j in self.cat.judgments:
            if j.subject_key.startswith(REVIEW_SOURCES):
                out.setdefault(j.subject_key, []).append(j)
        return out

    @cached_property
    def keys(self) -> list[str]:
        return list(self.by_key)

    @cached_property
    def texts(self) -> dict[str, judged.JudgedReview]:
        papers = {j.paper_id for j in self.cat.judgments if j.paper_id is not None}
        found = {}
        for read in (judged.human_reviews, judged.peerlake_reviews, judged.system_reviews, judged.external_reviews):
            for r in read(self.log, papers):
                found[r.review_key] = r
        return found

    def row(self, n: int) -> dict:
        key = self.keys[n]
        js = self.by_key[key]
        review = self.texts.get(key)
        return {"n": n, "review_key": key, "paper": js[0].paper_id, "judges": sorted({j.judge for j in js}),
                "system": review.system if review else None, "found": review is not None}

    def detail(self, n: int) -> dict:
        key = self.keys[n]
        review = self.texts.get(key)
        out = {**self.row(n), "views": []}
        for j in sorted(self.by_key[key], key=lambda j: (j.judge, j.step, j.repeat, j.event_id)):
            view = {"judge": j.judge, "step": j.step, "judge_config": j.judge_config, "repeat": j.repeat,
                    "status": j.status, "null_reason": j.null_reason, "recorded_at": j.occurred_at.isoformat(),
                    "calls": [i for i in json.loads(j.llm_call_ids_json) if i in self.cat.calls],
                    "text": None, "units": []}
            if review is not None:
                text = review.for_judge(j.judge).text
                view["text"] = text
                view["units"] = _place_units(json.loads(j.units_json), text)
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
    ev = cat.systems[n]
    steps = []
    for i, s in enumerate(json.loads(ev.calls_json)):
        answer = cat.answer(s.get("request_key", ""))
        errors = [e for e in cat.by_request.get(s.get("request_key", ""), ()) if e.status != "ok"]
        steps.append({"index": i, "step": s.get("step"), "round": s.get("round"), "member": s.get("member"),
                      "call": answer.event_id if answer else None, "recorded_call": s.get("llm_call_id"),
                      "purpose": answer.purpose if answer else None,
                      "cost_usd": answer.cost_usd if answer else None,
                      "ms": round(answer.latency_ms) if answer else None, "failed_attempts": len(errors)})
    return {"n": n, **system_row(cat, n), "null_reason": ev.null_reason, "score_scale": ev.score_scale,
            "confidence": ev.confidence, "options": ev.options_json, "review": ev.review_json, "steps": steps}


def system_row(cat: Catalog, n: int) -> dict:
    ev = cat.systems[n]
    return {"n": n, "system": ev.system, "system_config": ev.system_config, "paper": ev.paper_id,
            "sample": ev.sample_index, "model": f"{ev.provider}/{ev.model}", "status": ev.status,
            "score": ev.score, "steps": len(json.loads(ev.calls_json)), "at": ev.occurred_at.isoformat(),
            "study": ev.study}
