"""One registration mechanism (warehouse/registry.py): unknown names fail with the known ones and the
closest, duplicates fail when registered naming both places, and every kind moved onto it lists the names
it listed before. Expected names come from the files on disk or from the lists as they were kept by hand
(regression oracles), never from the registry itself."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from peerlake.warehouse.registry import DuplicateName, PluginImportError, Registry, UnknownName, import_modules

REPO = Path(__file__).resolve().parents[1]


def _backends() -> Registry:
    r = Registry("retrieval backend")
    r.add("offline", len)
    r.add("semantic_scholar", print)
    return r


def test_an_unknown_name_fails_with_the_known_names_a_suggestion_and_what_to_do():
    with pytest.raises(UnknownName) as exc:
        _backends()["semantic-scholar"]
    assert str(exc.value) == ("unknown retrieval backend 'semantic-scholar'; known: offline, semantic_scholar; "
                              "did you mean 'semantic_scholar'? Name one of them, or add a retrieval backend "
                              "(docs/reference/plugins.md).")


def test_an_unknown_name_nothing_resembles_gets_no_suggestion_and_a_kinds_own_error():
    r = Registry("provider", error=LookupError, hint="Set PEERLAKE_PROVIDER.")
    r.add("local", len)
    with pytest.raises(LookupError, match=r"^unknown provider 'zzz'; known: local\. Set PEERLAKE_PROVIDER\.$"):
        r["zzz"]
    assert r.get("zzz") is None and "zzz" not in r


def _first():
    pass


def _second():
    pass


def test_a_name_two_places_register_fails_when_registered_naming_both():
    r = Registry("command group")
    r.register("view")(_first)
    with pytest.raises(DuplicateName, match=r"command group 'view' is registered twice: by tests\.test_registry:"
                                            r"_first and by tests\.test_registry:_second; rename one"):
        r.register("view")(_second)
    assert r["view"] is _first


def test_the_same_place_registering_again_replaces_its_entry():
    class Toy:
        pass

    r = Registry("reviewer system")
    first, second = Toy(), Toy()  # a test registering its toy once per test
    r.add("toy", first)
    r.add("toy", second)
    assert r["toy"] is second and r.names() == ("toy",)


def test_names_are_checked_when_registered():
    with pytest.raises(ValueError, match="name 'Two Words'"):
        Registry("gate suite").add("Two Words", len)


def test_order_then_registration_order():
    r = Registry("reviewer system")
    r.add("b", len, order=2)
    r.add("a", len, order=2)
    r.add("c", len, order=1)
    assert r.names() == ("c", "b", "a") and list(r) == ["c", "b", "a"] and len(r) == 3


def test_a_lazy_entry_imports_its_module_on_first_lookup_only(tmp_path, monkeypatch):
    (tmp_path / "lazy_plugin_for_test.py").write_text("class Thing:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    r = Registry("provider")
    r.add_lazy("thing", "lazy_plugin_for_test:Thing")
    assert "thing" in r and r.names() == ("thing",) and "lazy_plugin_for_test" not in sys.modules
    assert r["thing"].__name__ == "Thing" and "lazy_plugin_for_test" in sys.modules
    r.add_lazy("gone", "lazy_plugin_for_test:Gone")
    with pytest.raises(PluginImportError, match="provider 'gone' is registered as lazy_plugin_for_test:Gone"):
        r["gone"]
    monkeypatch.delitem(sys.modules, "lazy_plugin_for_test")


def test_the_load_hook_runs_once_before_the_first_listing():
    calls = []
    r = Registry("gate suite", load=lambda: calls.append(r.add("papers", len)))
    assert calls == []
    assert r.names() == ("papers",) and "papers" in r and r["papers"] is len
    assert len(calls) == 1


def test_a_plugin_module_that_cannot_be_imported_is_never_skipped(tmp_path, monkeypatch):
    pkg = tmp_path / "plugins_for_test"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "good.py").write_text("X = 1\n")
    (pkg / "broken.py").write_text("import no_such_package_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginImportError, match=r"plugins_for_test\.broken cannot be imported "
                                                r"\(ModuleNotFoundError: .*no_such_package_anywhere.*make install"):
        import_modules("plugins_for_test", [str(pkg)])
    good = import_modules("plugins_for_test", [str(pkg)], prefix="go")
    assert [m.__name__ for m in good] == ["plugins_for_test.good"]
    for name in [n for n in sys.modules if n.startswith("plugins_for_test")]:
        monkeypatch.delitem(sys.modules, name)


# ---- the kinds on it: each lists what it listed before -------------------------------------------------


def _classes_on_disk(folder: Path, base: str) -> dict[str, str]:
    """module:Class of every class in the folder's modules that names `base` among its bases (read, not imported)."""
    out = {}
    for path in sorted(folder.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            bases = {getattr(b, "id", getattr(b, "attr", None)) for b in getattr(node, "bases", ())}
            if isinstance(node, ast.ClassDef) and base in bases:
                package = "peerlake." + folder.relative_to(REPO).as_posix().replace("/", ".")
                out[node.name] = f"{package}.{path.stem}:{node.name}"
    return out


def test_providers_are_the_five_kept_by_hand_each_a_provider_class():
    from peerlake.llm_calls.providers import PROVIDER_NAMES, PROVIDERS, Provider, ProviderUnavailable, make_provider
    from peerlake.warehouse import settings

    # settings.PROVIDERS as it was, and gemini (#46)
    assert PROVIDER_NAMES == ("local", "openai", "openai_compatible", "anthropic", "gemini")
    assert settings.PROVIDERS == PROVIDER_NAMES and tuple(PROVIDERS) == PROVIDER_NAMES
    on_disk = _classes_on_disk(REPO / "llm_calls" / "providers", "Provider")
    on_disk |= _classes_on_disk(REPO / "llm_calls" / "providers", "OpenAIProvider")  # openai_compatible's
    assert set(settings.PROVIDER_CLASSES.values()) <= set(on_disk.values())
    assert all(issubclass(PROVIDERS[n], Provider) for n in PROVIDER_NAMES)
    with pytest.raises(ProviderUnavailable, match=r"unknown provider 'opnai'; known: local, openai, "
                                                  r"openai_compatible, anthropic, gemini; did you mean 'openai'\?"):
        make_provider("opnai")


def test_the_cli_starts_without_a_provider_module_or_sdk():
    code = ("import sys, peerlake.cli; print(sorted(m for m in sys.modules if m in ('openai', 'anthropic') or "
            "m.startswith(('peerlake.llm_calls.providers.', 'peerlake.retrieval.offline', "
            "'peerlake.retrieval.semantic_scholar'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]", out.stdout


def test_retrieval_backends_are_the_two_kept_by_hand_before_each_a_backend_class():
    from peerlake.retrieval.backend import Backend
    from peerlake.retrieval.backends import BACKENDS, make_backend
    from peerlake.studies.spec import RETRIEVAL_BACKENDS

    assert BACKENDS.names() == ("offline", "semantic_scholar")  # retrieval.BACKENDS as it was
    assert tuple(RETRIEVAL_BACKENDS) == BACKENDS.names()  # studies kept the same list a second time
    on_disk = _classes_on_disk(REPO / "retrieval", "Backend")
    assert {BACKENDS[n].__name__ for n in BACKENDS} == {"OfflineBackend", "SemanticScholarBackend"} <= set(on_disk)
    assert all(issubclass(BACKENDS[n], Backend) for n in BACKENDS)
    assert make_backend("semantic_scholar", log=None).name == "semantic_scholar"
    with pytest.raises(ValueError, match="unknown retrieval backend 'ofline'; known: offline, semantic_scholar; "
                                         "did you mean 'offline'"):
        make_backend("ofline", log=None)


# The groups as peerlake/commands/__init__.py listed them by hand, and `peerlake --help`'s command order then.
COMMAND_MODULES = ("ingest", "budget", "report", "study", "validate", "audit", "diff", "costs", "systems", "marts",
                   "view", "probe_judges", "plan_labels", "label")
HELP_ORDER = ["demo", "setup-model", "ui", "review", "sample", "run", "systems", "ingest", "study", "query", "budget",
              "report", "audit", "diff", "costs", "marts", "view", "calls", "call", "probe-judges", "plan-labels",
              "label", "build", "verify", "seal", "validate-judges"]


def test_command_groups_are_the_modules_on_disk_in_the_order_listed_before():
    import click
    import typer.main

    from peerlake.cli import app
    from peerlake.commands import COMMAND_GROUPS

    commands = REPO / "peerlake" / "commands"  # a group is a module or a package (validate/)
    on_disk = ({p.stem for p in commands.glob("*.py")} | {p.parent.name for p in commands.glob("*/__init__.py")}) - {
        "__init__"}
    assert set(COMMAND_GROUPS) == on_disk == set(COMMAND_MODULES)
    assert COMMAND_GROUPS.names() == COMMAND_MODULES
    root = typer.main.get_command(app)
    assert root.list_commands(click.Context(root)) == HELP_ORDER


@pytest.mark.parametrize(("source", "expected"), [
    ("import no_such_package_anywhere\n", r"peerlake\.commands\.extra_for_test cannot be imported "
                                          r"\(ModuleNotFoundError: .*no_such_package_anywhere"),
    ("def register(app):\n    pass\n", r"peerlake\.commands\.extra_for_test register\(s\) no command group: "
                                      r"decorate the module's `register\(app\)` with @command_group"),
])
def test_a_command_module_that_is_broken_or_registers_nothing_stops_the_cli(tmp_path, monkeypatch, source, expected):
    import peerlake.commands as commands

    (tmp_path / "extra_for_test.py").write_text(source)
    monkeypatch.setattr(commands, "__path__", [*commands.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "peerlake.commands.extra_for_test", raising=False)
    with pytest.raises(ImportError, match=expected):
        commands._import_groups()
    sys.modules.pop("peerlake.commands.extra_for_test", None)


def _system_names_on_disk() -> set[str]:
    """The `name = "…"` of every class in reviewing/systems/ (read, not imported): each module's systems."""
    return {stmt.value.value for path in (REPO / "reviewing" / "systems").glob("*.py")
            for node in ast.parse(path.read_text()).body if isinstance(node, ast.ClassDef)
            for stmt in node.body if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant)
            and [getattr(t, "id", None) for t in stmt.targets] == ["name"]}


def test_reviewer_systems_are_the_named_classes_on_disk_in_the_order_listed_before():
    from peerlake.reviewing.systems import REGISTRY, SYSTEMS, SystemOptionError, get_system, system_names

    assert set(system_names()) == _system_names_on_disk()
    assert SYSTEMS == ("mlr", "mlr-combined", "llm-review", "ai-scientist", "agentreview")  # as kept by hand once
    with pytest.raises(SystemOptionError, match=r"unknown reviewer system 'mrl'; known: mlr, mlr-combined, "
                                                r"llm-review, ai-scientist, agentreview.*; did you mean 'mlr'"):
        get_system("mrl")
    with pytest.raises(DuplicateName, match=r"reviewer system 'mlr' is registered twice: by peerlake\.reviewing\."
                                            r"systems\.mlr:MultiLayeredReview and by tests\.test_registry:"):
        REGISTRY.add("mlr", _first)


def test_gate_suites_are_the_suite_files_on_disk_and_one_can_be_swapped_for_a_test(monkeypatch):
    from peerlake.expectations import gates

    on_disk = {p.stem.removeprefix("suite_") for p in (REPO / "expectations").glob("suite_*.py")}
    assert set(gates.SUITES) == on_disk and gates.SUITES.names() == tuple(sorted(on_disk))  # by name, as before
    assert gates.GATES.keys() == on_disk
    with pytest.raises(ValueError, match=r"unknown gate suite 'cost_by_modle'; known: .*cost_by_model.*; "
                                         r"did you mean 'cost_by_model'"):
        gates.run_gate("cost_by_modle", REPO / "no.duckdb")
    swapped = sys.modules[__name__]
    monkeypatch.setitem(gates.SUITES, "papers", gates.SUITES["papers"])  # what a test may do
    monkeypatch.setitem(gates.SUITES, "swapped-for-a-test", swapped)
    assert gates.SUITES["swapped-for-a-test"] is swapped
    monkeypatch.undo()
    assert "swapped-for-a-test" not in gates.SUITES and set(gates.SUITES) == on_disk
