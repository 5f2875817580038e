"""The page set served on 127.0.0.1 only: the viewer and the report pages, nothing else of the folder
(the default folder is the lake root, whose events and blobs stay unserved), detail files written on
their first request."""

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
        if len(parts) == 5 and parts[1:3] == ["viewer", "data"] and parts[4].endswith(".js"):
            self.site.ensure(parts[3], parts[4][:-3])
        super().do_GET()

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
