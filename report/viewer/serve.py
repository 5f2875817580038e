"""The page set served on 127.0.0.1 only: the viewer and the report pages, nothing else of the folder
(the default folder is the lake root, whose events and blobs stay unserved), detail files written on
their first request."""

import json
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

from peerlake.report.viewer.site import Site

SERVED = ("/viewer/", "/reports/")


class _Handler(SimpleHTTPRequestHandler):
    site: Site

    def log_message(self, format, *args) -> None:  # the terminal shows the URL, not every request
        pass

    def do_GET(self) -> None:
        path = unquote(urlsplit(self.path).path)
        if path in ("/", "/index.html", "/viewer", "/viewer/"):
            self.send_response(302)
            self.send_header("Location", "/viewer/index.html")
            self.end_headers()
            return
        if not path.startswith(SERVED) or ".." in path.split("/"):
            self.send_error(404)
            return
        parts = path.split("/")  # "", "viewer", "data", kind, "name.js"
        if parts == ["", "viewer", "data", "label", "page.js"] and self.site.label is not None:
            self.site.write_label()  # what is done changes with every label: written on every request
        elif len(parts) == 5 and parts[1:3] == ["viewer", "data"] and parts[4].endswith(".js"):
            self.site.ensure(parts[3], parts[4][:-3])
        super().do_GET()

    def do_POST(self) -> None:
        """A label (`peerlake label`): JSON from this page only, checked by the session before it is written."""
        from peerlake.report.viewer.label import MAX_BODY, Refused

        host, port = self.server.server_address[:2]
        origin = self.headers.get("Origin")
        if urlsplit(self.path).path != "/viewer/label" or self.site.label is None:
            self.send_error(404)
            return
        # another site open in the same browser may POST to 127.0.0.1: only this page's own origin, and only
        # JSON (a cross-origin JSON POST needs a preflight this server never answers)
        if self.headers.get("Host") != f"{host}:{port}" or origin not in (None, f"http://{host}:{port}") \
                or self.headers.get_content_type() != "application/json":
            self._json(403, {"error": "labels are taken from the label page of this server only, as JSON"})
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._json(413, {"error": f"a label is at most {MAX_BODY:,} bytes, with its Content-Length"})
            return
        try:
            event = self.site.label.enter(self.rfile.read(length))
        except Refused as exc:
            self._json(400, {"error": str(exc)})
            return
        self._json(200, {"ok": True, "event_id": event.event_id})

    def _json(self, status: int, doc: dict) -> None:
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_HEAD(self) -> None:
        self.send_error(405)

    def end_headers(self) -> None:
        # data files change with the lake: never let a browser keep yesterday's
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()


def start(site: Site, port: int = 0) -> ThreadingHTTPServer:
    """A server in a daemon thread; its URL is url(server)."""
    handler = type("Handler", (_Handler,), {"site": site})
    server = ThreadingHTTPServer(("127.0.0.1", port), partial(handler, directory=str(site.root)))
    threading.Thread(target=server.serve_forever, name="peerlake-view", daemon=True).start()
    return server


def url(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/viewer/index.html"
