import shutil

import pytest

from peerlake.report.viewer.serve import start, url
from peerlake.report.viewer.site import Site
from peerlake.warehouse import Lake
from tests import shared_lakes
from tests.audit.conftest import audit_built  # noqa: F401  (the session's audit lake, built once)
from tests.viewer.viewer_lake import build_and_run


@pytest.fixture(scope="session")
def viewer_lake(tmp_path_factory):
    """The viewer's small lake (tests/viewer/viewer_lake.py) with its marts built: read only, built once for
    the session and shared by every viewer test module (tests/shared_lakes.py)."""
    return shared_lakes.built_once(tmp_path_factory, "viewer", build_and_run)


@pytest.fixture(scope="module")
def viewer_site(viewer_lake, tmp_path_factory):
    """The page set of the viewer lake, its lists written, details on demand, served on 127.0.0.1."""
    site = Site(tmp_path_factory.mktemp("viewer-site"), Lake(viewer_lake.root), viewer_lake.db)
    site.write_lists()
    server = start(site)
    yield site, url(server)
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    """Chromium from the distribution (apt-get install chromium), driven by Playwright: no browser download."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright): the viewer's browser tests skip")
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("no chromium on PATH (apt-get install chromium): the viewer's browser tests skip")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.errors = errors
    yield pg
    context.close()


@pytest.fixture
def cli_share(viewer_lake, tmp_path, monkeypatch):
    """`peerlake view --out` of the viewer lake into a fresh folder: the path of its front door, index.html."""
    from typer.testing import CliRunner

    from peerlake.cli import app

    monkeypatch.setenv("PEERLAKE_HOME", str(viewer_lake.root))
    result = CliRunner().invoke(app, ["view", "--out", str(tmp_path / "share")])
    assert result.exit_code == 0, result.output
    return tmp_path / "share" / "index.html"
