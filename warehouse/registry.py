"""One way to name a plug-in: model providers, retrieval backends, reviewer systems, gate suites, CLI
command groups (docs/reference/plugins.md says how to add each).

A `Registry(kind)` maps names to what plug-ins register (a class, a factory, a module), in registration
order unless an entry says its `order`. Names are checked when registered, at import: a name two places
register is a DuplicateName naming both; the same place registering again (a module imported twice, a
test registering its toy per test) replaces its entry. Looking up an unknown name fails with the known
names, the closest one and what to do. A lazy entry ("module:attr") imports its module on first lookup,
so a provider's SDK loads only when a call needs it; `load` imports a plug-in package's modules before
the first lookup or listing, so their decorators have run.

Standard library only: every layer may import this (warehouse.settings, which imports nothing of ours,
excepted).
"""

import difflib
import importlib
import importlib.util
import pkgutil
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar

T = TypeVar("T")
DOCS = "docs/reference/plugins.md"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")  # what a study file, a setting or a flag can spell


class UnknownName(KeyError):
    """A name nothing registered; the message lists the known names."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0])


class DuplicateName(ValueError):
    """Two places register one name; the message names both."""


class PluginImportError(ImportError):
    """A module of a plug-in package cannot be imported; the message says which and what to do."""


@dataclass
class _Entry:
    where: str  # "module:qualname" of what registered it, or a lazy entry's target
    order: float
    value: Any = None
    lazy: bool = False


class Registry(Mapping[str, T], Generic[T]):
    """Plug-ins of one kind by name; `registry[name]` is the registered object (UnknownName, or the
    `error` given, when none is); `in`, iteration and `names()` never import a lazy entry."""

    def __init__(self, kind: str, *, hint: str = "", error: Callable[[str], Exception] = UnknownName,
                 load: Callable[[], object] | None = None):
        self.kind = kind
        self.hint = hint or f"Name one of them, or add a {kind} ({DOCS})."
        self.error = error
        self._load_hook = load
        self._loaded = load is None
        self._loading = False
        self._lock = threading.RLock()
        self._entries: dict[str, _Entry] = {}

    def add(self, name: str, obj: T, *, order: float = 0) -> T:
        """Register `obj` under `name` (returned, so a decorator can pass it on)."""
        self._put(name, _Entry(_place(obj), order, obj))
        return obj

    def register(self, name: str, *, order: float = 0) -> Callable[[T], T]:
        """Decorator: `@registry.register("name")` registers the class or function it decorates."""
        return lambda obj: self.add(name, obj, order=order)

    def add_lazy(self, name: str, target: str, *, order: float = 0) -> None:
        """Register "module:attr", imported on the first lookup of `name` (listing never imports it)."""
        if ":" not in target:
            raise ValueError(f"{self.kind} {name!r}: lazy target {target!r} is not 'module:attr'")
        self._put(name, _Entry(target, order, lazy=True))

    def __getitem__(self, name: str) -> T:
        self._load()
        entry = self._entries.get(name)
        if entry is None:
            raise self.error(self.unknown_message(name))
        if entry.lazy:
            module, _, attr = entry.where.partition(":")
            try:
                entry.value = getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError) as exc:
                raise PluginImportError(f"{self.kind} {name!r} is registered as {entry.where}, which cannot be "
                                        f"imported ({type(exc).__name__}: {exc}); fix that module, or the "
                                        f"entry that names it ({DOCS})") from exc
            entry.lazy = False
        return entry.value

    def __setitem__(self, name: str, obj: T) -> None:
        """`registry[name] = obj` is `add(name, obj)`; with __delitem__, what `monkeypatch.setitem` needs
        to swap an entry for one test (it keeps the entry's place in the listing)."""
        old = self._entries.get(name)
        self.add(name, obj, order=old.order if old else 0)

    def __delitem__(self, name: str) -> None:
        with self._lock:
            del self._entries[name]

    def get(self, name: str, default: Any = None) -> T | Any:
        """The entry, or `default` for an unknown name (Mapping's own would catch KeyError only)."""
        if name not in self:
            return default
        return self[name]

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self._load()
        return len(self._entries)

    def names(self) -> tuple[str, ...]:
        """Every registered name, by `order` and then in registration order."""
        self._load()
        return tuple(sorted(self._entries, key=lambda n: self._entries[n].order))

    def unknown_message(self, name: str) -> str:
        """'unknown <kind> 'x'; known: a, b, c; did you mean 'b'? <what to do>'."""
        known = self.names()
        close = difflib.get_close_matches(str(name), known, n=1)
        guess = f"; did you mean {close[0]!r}?" if close else "."
        return f"unknown {self.kind} {name!r}; known: {', '.join(known) or '(none)'}{guess} {self.hint}"

    def _put(self, name: str, entry: _Entry) -> None:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"{self.kind} name {name!r} (from {entry.where}): use lower-case letters, digits, "
                             "'_' and '-', starting with a letter or digit")
        with self._lock:
            old = self._entries.get(name)
            if old is not None and old.where != entry.where:
                raise DuplicateName(f"{self.kind} {name!r} is registered twice: by {old.where} and by "
                                    f"{entry.where}; rename one of them")
            self._entries[name] = entry

    def _load(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if self._loaded or self._loading:  # a module the hook imports may look up while it loads
                return
            self._loading = True
            try:
                self._load_hook()
                self._loaded = True
            finally:
                self._loading = False


def _place(obj: object) -> str:
    """Where a registered object comes from: a module's name; a class's or a function's module and name;
    else its type's (instances of one class come from one place)."""
    if isinstance(obj, ModuleType):
        return obj.__name__
    named = obj if hasattr(obj, "__qualname__") else type(obj)
    return f"{named.__module__}:{named.__qualname__}"


def import_modules(package: str, path: Iterable[str], prefix: str = "") -> list[ModuleType]:
    """Import every module of a plug-in package whose name starts with `prefix`, by name. One that cannot
    be imported stops the caller with its name and what to do; it is never skipped."""
    modules = []
    for info in sorted(pkgutil.iter_modules(list(path)), key=lambda i: i.name):
        if not info.name.startswith(prefix):
            continue
        name = f"{package}.{info.name}"
        try:
            modules.append(importlib.import_module(name))
        except DuplicateName:
            raise
        except Exception as exc:
            raise PluginImportError(f"{name} cannot be imported ({type(exc).__name__}: {exc}): fix the module, "
                                    "or remove it; a missing package: install peerlake's dependencies again "
                                    "(`make install`)") from exc
    return modules


PLUGIN_PACKAGE = "peerlake_plugins"  # the name plug-in folders' modules are imported under


def import_folder(folder: Path) -> list[ModuleType]:
    """Import every module (`*.py`, none starting with `_`) of a plug-in folder outside the package, by file,
    as `peerlake_plugins.<file name>`; once per process (a second call returns the same modules). A folder
    that does not exist, two folders with one module name, or a module that cannot be imported stops the
    caller with the file and what to do."""
    if not folder.is_dir():
        raise PluginImportError(f"plug-in folder {folder} does not exist (PEERLAKE_PLUGINS names it): fix the "
                                "path, or remove it from PEERLAKE_PLUGINS")
    modules = []
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        name = f"{PLUGIN_PACKAGE}.{path.stem}"
        loaded = sys.modules.get(name)
        if loaded is not None:
            if Path(loaded.__file__ or "").resolve() != path.resolve():
                raise DuplicateName(f"plug-in module {path.stem!r} is in two folders: {loaded.__file__} and {path}; "
                                    "rename one of them")
            modules.append(loaded)
            continue
        if PLUGIN_PACKAGE not in sys.modules:  # a namespace for the plug-ins, so pickling and tracebacks name them
            package = ModuleType(PLUGIN_PACKAGE)
            package.__path__ = []
            sys.modules[PLUGIN_PACKAGE] = package
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except DuplicateName:
            del sys.modules[name]
            raise
        except Exception as exc:
            del sys.modules[name]
            raise PluginImportError(f"plug-in {path} cannot be imported ({type(exc).__name__}: {exc}): fix the "
                                    "module, or remove it from its folder") from exc
        modules.append(module)
    return modules
