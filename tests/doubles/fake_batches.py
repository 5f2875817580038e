"""The loopback server's batch endpoints: OpenAI Batch and Anthropic Message Batches, as documented.

OpenAI: POST /v1/files (multipart: `file`, `purpose=batch`) → a file object; POST /v1/batches
{input_file_id, endpoint, completion_window} → a batch object (status validating → in_progress →
completed); GET /v1/batches/{id}; GET /v1/files/{id}/content → JSONL. Output lines are
{id, custom_id, response: {status_code, request_id, body}, error}; failed ones go to the error file.
Anthropic: POST /v1/messages/batches {requests: [{custom_id, params}]} → a message_batch
(processing_status in_progress → ended, request_counts, results_url); GET …/{id}; GET …/{id}/results
→ JSONL {custom_id, result: {type: succeeded, message} | {type: errored, error: {type: error, error}}}.

Items are answered by the server's own answer functions (so usage and prompt caching behave as for
direct calls) when the batch ends, at its `polls_to_end`-th poll.
"""

import email.parser
import email.policy
import json
import re
import threading
import time
from datetime import UTC, datetime
from typing import Any

_CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # Anthropic's rule for custom_id


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat().replace("+00:00", "Z")


def _not_found(what: str, anthropic: bool) -> tuple[int, dict]:
    if anthropic:
        return 404, {"type": "error", "error": {"type": "not_found_error", "message": f"{what} not found"}}
    return 404, {"error": {"message": f"No such {what}", "type": "invalid_request_error", "code": None}}


class FakeBatches:
    def __init__(self, server: Any, polls_to_end: int = 2):
        self.server = server
        self.polls_to_end = polls_to_end
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created: list[str] = []  # batch ids in creation order
        self.polls = 0
        self.item_bodies: list[dict] = []  # every item body answered or failed, in processing order
        self.answered: list[str] = []  # custom_ids answered successfully (a key twice = paid twice)
        self._fail_next = 0
        self._n = 0
        self._lock = threading.Lock()

    def fail_next(self, n: int) -> None:
        with self._lock:
            self._fail_next += n

    def _id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n:06d}"

    # ---- routing -----------------------------------------------------------------------------
    @staticmethod
    def handles_post(path: str) -> bool:
        return path.endswith(("/v1/files", "/v1/batches", "/v1/messages/batches"))

    def post(self, path: str, raw: bytes, content_type: str) -> tuple[int, dict]:
        with self._lock:
            if path.endswith("/v1/messages/batches"):
                return self._anthropic_create(json.loads(raw or b"{}"))
            if path.endswith("/v1/files"):
                return self._upload(raw, content_type)
            return self._openai_create(json.loads(raw or b"{}"))

    def get(self, path: str) -> tuple[int, dict | bytes]:
        with self._lock:
            if m := re.search(r"/v1/messages/batches/([^/]+)/results$", path):
                return self._anthropic_results(m.group(1))
            if m := re.search(r"/v1/messages/batches/([^/]+)$", path):
                return self._poll(m.group(1), anthropic=True)
            if m := re.search(r"/v1/batches/([^/]+)$", path):
                return self._poll(m.group(1), anthropic=False)
            if m := re.search(r"/v1/files/([^/]+)/content$", path):
                if m.group(1) not in self.files:
                    return _not_found("file", anthropic=False)
                return 200, self.files[m.group(1)]
            return _not_found(path, anthropic="/messages/" in path)

    # ---- OpenAI ------------------------------------------------------------------------------
    def _upload(self, raw: bytes, content_type: str) -> tuple[int, dict]:
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"content-type: {content_type}\r\n\r\n".encode() + raw)
        fields = {part.get_param("name", header="content-disposition"): part for part in msg.iter_parts()}
        purpose = (fields.get("purpose").get_content().strip() if fields.get("purpose") else None)
        if "file" not in fields or purpose != "batch":
            return 400, {"error": {"message": "need a `file` and purpose `batch`", "type": "invalid_request_error"}}
        data = fields["file"].get_payload(decode=True)
        file_id = self._id("file-")
        self.files[file_id] = data
        return 200, {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                     "filename": fields["file"].get_filename(), "purpose": "batch", "status": "processed"}

    def _openai_create(self, body: dict) -> tuple[int, dict]:
        file_id = body.get("input_file_id")
        if file_id not in self.files or body.get("completion_window") != "24h":
            return 400, {"error": {"message": "unknown input_file_id or completion_window not 24h",
                                   "type": "invalid_request_error"}}
        lines = [json.loads(x) for x in self.files[file_id].decode().splitlines() if x.strip()]
        errors = []
        ids = [x.get("custom_id") for x in lines]
        if len(set(ids)) != len(ids):
            errors.append({"code": "duplicate_custom_id", "message": "custom_id must be unique", "line": None})
        if len({x.get("body", {}).get("model") for x in lines}) > 1:
            errors.append({"code": "mixed_models", "message": "one model per batch", "line": None})
        if any(x.get("url") != body.get("endpoint") for x in lines):
            errors.append({"code": "invalid_url", "message": "every line's url must be the endpoint", "line": None})
        now = int(time.time())
        batch_id = self._id("batch_")
        obj = {"id": batch_id, "object": "batch", "endpoint": body.get("endpoint"), "errors": None,
               "input_file_id": file_id, "completion_window": "24h", "status": "validating",
               "output_file_id": None, "error_file_id": None, "created_at": now, "in_progress_at": None,
               "expires_at": now + 86400, "finalizing_at": None, "completed_at": None, "failed_at": None,
               "expired_at": None, "cancelling_at": None, "cancelled_at": None,
               "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
               "metadata": body.get("metadata")}
        if errors:
            obj.update(status="failed", failed_at=now, errors={"object": "list", "data": errors})
        self.batches[batch_id] = {"protocol": "openai", "obj": obj, "polls": 0, "lines": lines}
        self.created.append(batch_id)
        return 200, obj

    def _openai_end(self, batch: dict) -> None:
        out, err = [], []
        for line in batch["lines"]:
            answer = self._answer(line["custom_id"], line["body"], anthropic=False)
            row = {"id": self._id("batch_req_"), "custom_id": line["custom_id"], "error": None,
                   "response": {"status_code": 200 if answer else 500, "request_id": self._id("req_"),
                                "body": answer or {"error": {"message": "scripted batch item failure",
                                                             "type": "server_error", "code": None}}}}
            (out if answer else err).append(row)
        obj, now = batch["obj"], int(time.time())
        for name, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                file_id = self._id("file-")
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                obj[name] = file_id
        obj.update(status="completed", in_progress_at=obj["created_at"], finalizing_at=now, completed_at=now,
                   request_counts={"total": len(batch["lines"]), "completed": len(out), "failed": len(err)})

    # ---- Anthropic ---------------------------------------------------------------------------
    def _anthropic_create(self, body: dict) -> tuple[int, dict]:
        requests = body.get("requests") or []
        ids = [r.get("custom_id") for r in requests]
        if not requests or len(set(ids)) != len(ids) or not all(
                isinstance(i, str) and _CUSTOM_ID.fullmatch(i) for i in ids):
            message = "custom_id must be unique and match ^[a-zA-Z0-9_-]{1,64}$"
            return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
        now = time.time()
        batch_id = self._id("msgbatch_")
        obj = {"id": batch_id, "type": "message_batch", "processing_status": "in_progress",
               "request_counts": {"processing": len(requests), "succeeded": 0, "errored": 0, "canceled": 0,
                                  "expired": 0},
               "ended_at": None, "created_at": _iso(now), "expires_at": _iso(now + 86400),
               "cancel_initiated_at": None, "archived_at": None, "results_url": None}
        self.batches[batch_id] = {"protocol": "anthropic", "obj": obj, "polls": 0, "lines": requests}
        self.created.append(batch_id)
        return 200, obj

    def _anthropic_end(self, batch: dict) -> None:
        rows, ok = [], 0
        for req in batch["lines"]:
            answer = self._answer(req["custom_id"], req["params"], anthropic=True)
            if answer:
                ok += 1
                result: dict[str, Any] = {"type": "succeeded", "message": answer}
            else:
                result = {"type": "errored", "error": {"type": "error", "error": {
                    "type": "api_error", "message": "scripted batch item failure"}}}
            rows.append({"custom_id": req["custom_id"], "result": result})
        obj = batch["obj"]
        batch["results"] = "".join(json.dumps(r) + "\n" for r in rows).encode()
        obj.update(processing_status="ended", ended_at=_iso(time.time()),
                   results_url=f"{self.server.url}/v1/messages/batches/{obj['id']}/results",
                   request_counts={"processing": 0, "succeeded": ok, "errored": len(rows) - ok, "canceled": 0,
                                   "expired": 0})

    def _anthropic_results(self, batch_id: str) -> tuple[int, dict | bytes]:
        batch = self.batches.get(batch_id)
        if batch is None or "results" not in batch:
            return _not_found("message batch results", anthropic=True)
        return 200, batch["results"]

    # ---- shared ------------------------------------------------------------------------------
    def _poll(self, batch_id: str, anthropic: bool) -> tuple[int, dict]:
        batch = self.batches.get(batch_id)
        if batch is None or (batch["protocol"] == "anthropic") != anthropic:
            return _not_found("batch", anthropic)
        self.polls += 1
        batch["polls"] += 1
        obj = batch["obj"]
        if not anthropic and obj["status"] == "validating":
            obj.update(status="in_progress", in_progress_at=int(time.time()))
        running = obj.get("processing_status") == "in_progress" or obj.get("status") == "in_progress"
        if running and batch["polls"] >= self.polls_to_end:
            (self._anthropic_end if anthropic else self._openai_end)(batch)
        return 200, obj

    def _answer(self, custom_id: str, body: dict, anthropic: bool) -> dict | None:
        """The answer a direct call would get, or None for a scripted failure."""
        self.item_bodies.append(body)
        if self._fail_next > 0:
            self._fail_next -= 1
            return None
        self._n += 1
        number = 1_000_000 + self._n  # apart from the direct calls' request numbers
        self.answered.append(custom_id)
        return self.server.anthropic_answer(body, number) if anthropic else self.server.openai_answer(body, number)
