"""A scriptable loopback Semantic Scholar Graph API (GET /paper/search only), at the network edge.

fixtures/s2_search.json is hand-made in the documented response shape of `GET /graph/v1/paper/search`
(`total`, `offset`, `next`, `data`: paper objects with `paperId` and the requested `fields`; a
missing field is null, a missing venue ""). Ids and abstracts are made up; the first two titles are
real papers, the third is not.
"""

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

SEARCH_RESPONSE = json.loads((Path(__file__).parent / "fixtures" / "s2_search.json").read_text())


@dataclass
class Reply:
    status: int = 200
    body: dict | None = None  # None: the fixture (200) or an error body like the API's
    raw_body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    echo_key: bool = False  # put the request's x-api-key into the error message, as a careless proxy might


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, format, *args) -> None:
        pass

    def do_GET(self) -> None:
        fake = self.server.fake
        url = urlsplit(self.path)
        reply = fake._enter(url.path, parse_qs(url.query), dict(self.headers))
        time.sleep(reply.delay_s)
        if url.path.rstrip("/").endswith("/paper/search") or reply.status != 200:
            payload = reply.body if reply.body is not None else (
                SEARCH_RESPONSE if reply.status == 200 else {"error": f"scripted error {reply.status}"})
        else:
            reply, payload = Reply(status=404), {"error": f"no route {url.path}"}
        if reply.echo_key:
            payload = {"message": f"Forbidden: key {self.headers.get('x-api-key')} is not valid"}
        data = reply.raw_body if reply.raw_body is not None else json.dumps(payload).encode()
        self.send_response(reply.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: "FakeS2Server"


class FakeS2Server:
    def __init__(self, delay_s: float = 0.0):
        self.delay_s = delay_s
        self.requests: list[dict] = []  # {"path", "params", "headers"} per request
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/graph/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def _enter(self, path: str, params: dict, headers: dict) -> Reply:
        with self._lock:
            self.requests.append({"path": path, "params": params,
                                  "headers": {k.lower(): v for k, v in headers.items()}})
            return self._script.popleft() if self._script else Reply(delay_s=self.delay_s)

    def __enter__(self) -> "FakeS2Server":
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
