"""Helpers for the judge tests: a loopback LLM server that answers by rule (which judge step, which
review), hand-made reviews, and recording judgments the way the judgments asset does."""

import json
from collections.abc import Sequence

from peerlake.judging.base import JudgeContext, Judgment, Recorder
from peerlake.judging.reviews import JudgedReview
from tests.doubles.fake_server import FakeLlmServer, Reply

JUDGE_MODEL = "judge-test-model"
STUDY = "judge-test-study"


class ScriptedJudgeServer(FakeLlmServer):
    """Answers each request by the first rule whose schema title (= the template's output schema, e.g.
    "judge_depth_units") matches and whose needles all occur in the request's messages. Rules are not
    consumed, and work whatever order concurrent calls arrive in; `script()`ed replies still come
    first. A request no rule matches gets the default answer ({"score": 4, ...}: the wrong shape for
    every judge) and is kept in `unmatched`."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.rules: list[tuple[str, tuple[str, ...], object]] = []
        self.unmatched: list[dict] = []

    def answer(self, schema: str, *needles: str, reply: object) -> None:
        """`reply`: a dict/list (sent as JSON text), a str (sent as the model's text as-is), or a Reply
        (e.g. Reply(status=400) for a call that fails)."""
        self.rules.append((schema, needles, reply))

    @staticmethod
    def schema_title(body: dict) -> str | None:
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}
        return schema.get("title")

    @staticmethod
    def prompt(body: dict) -> str:
        return "\n".join(str(m.get("content")) for m in body.get("messages") or [])

    def bodies_for(self, schema: str) -> list[dict]:
        return [b for b in self.bodies if self.schema_title(b) == schema]

    def _rule(self, body: dict):
        title, text = self.schema_title(body), self.prompt(body)
        for schema, needles, reply in self.rules:
            if schema == title and all(n in text for n in needles):
                return reply
        return None

    def _enter(self, body: dict) -> tuple[int, Reply]:
        number, reply = super()._enter(body)
        if reply.status != 200 or reply.body is not None or reply.raw_body is not None:
            return number, reply  # a script()ed reply
        rule = self._rule(body)
        if rule is None:
            with self._lock:
                self.unmatched.append(body)
            return number, reply
        if isinstance(rule, Reply):
            return number, rule
        payload = self.openai_answer(body, number)
        payload["choices"][0]["message"]["content"] = rule if isinstance(rule, str) else json.dumps(rule)
        return number, Reply(body=payload)


def make_review(*sections: tuple[str, str], key: str = "human:r1", paper_id: str = "paper-1",
                source: str = "human", system: str = "human", sample_index: int | None = None,
                event_id: str = "01TESTEVENT") -> JudgedReview:
    """A hand-made review from (field, text) pairs, e.g. make_review(("summary", "..."), ("weaknesses", "..."))."""
    return JudgedReview(review_key=key, paper_id=paper_id, source=source, system=system,
                        sample_index=sample_index, sections=tuple(sections), event_id=event_id)


def record(ctx: JudgeContext, module, judgments: Sequence[Judgment]) -> tuple[Recorder, list]:
    """Record judgments as the judgments asset does; returns the recorder and the events it wrote."""
    rec = Recorder(ctx.log, ctx.judge_config, module.PARSER_VERSION, study=ctx.study)
    events = [ev for j in judgments if (ev := rec.record(j)) is not None]
    return rec, events


def units_of(event) -> list[dict]:
    return json.loads(event.units_json)


def assert_bounded(schema: dict, where: str = "$") -> None:
    """What a grammar-decoding small model needs (prompts/README.md): every array has maxItems, every
    string maxLength or an enum, every integer an enum, every object's properties required."""
    kind = schema.get("type")
    if kind == "array":
        assert "maxItems" in schema, f"{where}: unbounded array"
        assert_bounded(schema["items"], f"{where}[]")
    elif kind == "string":
        assert "maxLength" in schema or "enum" in schema, f"{where}: unbounded string"
    elif kind == "integer":
        assert "enum" in schema, f"{where}: integer without enum (llama.cpp ignores minimum/maximum)"
    elif kind == "object":
        props = schema.get("properties") or {}
        assert set(schema.get("required", [])) == set(props), f"{where}: not every property required"
        assert schema.get("additionalProperties") is False, f"{where}: additionalProperties allowed"
        for name, sub in props.items():
            assert_bounded(sub, f"{where}.{name}")


def schema_instance(schema: dict, sentence: str, boolean: bool = True):
    """A small valid value of a JSON schema, for a loopback server answering any judge or system step: at
    least one item per array (its minItems), the first enum value, `sentence` (cut to maxLength) for a string."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next(k for k in kind if k != "null") if isinstance(kind, list) else kind
    if kind == "object":
        return {k: schema_instance(v, sentence, boolean) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        n = min(max(1, schema.get("minItems", 1)), schema.get("maxItems", 1_000))
        return [schema_instance(schema.get("items") or {"type": "string"}, sentence, boolean) for _ in range(n)]
    if kind == "string":
        return sentence[: schema.get("maxLength", len(sentence))]
    if kind == "integer":
        return schema.get("minimum", 1)
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return boolean
    raise AssertionError(f"no instance for {schema}")
