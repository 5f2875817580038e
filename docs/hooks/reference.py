"""MkDocs hook: the reference pages are generated from the code at build time, so they cannot drift.

A page holding `<!-- generated: NAME -->` gets that marker replaced by the markdown of NAME:
- `cli`: every `peerlake` command, from typer's underlying click command (help, usage, options);
- `settings`: every environment variable the product reads, found in its source (where, default, why);
- `events`: every event type in `warehouse.events.EVENT_TYPES` (fields, schema version, upcasters);
- `marts`: every mart of the dbt project, from its yml (key and description).
"""

import ast
import dataclasses
import html
import inspect
import re
import sys
import typing
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- generated: (\w+) -->")
# Folders that hold no product code: their variables are the tests' or the benchmarks'.
NOT_PRODUCT = {"tests", "benchmarks", "docs", ".venv", "build", "dist", "node_modules", "dbt_project"}


def _escape_html(text: str) -> str:
    """`<config>` in a help string is text, not an HTML tag; inside `code spans` markdown keeps it as is.
    The CLI escapes `[` for Rich (peerlake.cli._plain_brackets); markdown wants the bracket itself."""
    parts = str(text).replace("\\[", "[").split("`")
    return "`".join(html.escape(p, quote=False) if i % 2 == 0 else p for i, p in enumerate(parts))


def _cell(text: str) -> str:
    """One markdown table cell: no newline, no bare pipe."""
    return _escape_html(" ".join(str(text).split())).replace("|", "\\|")


def _block(text: str) -> str:
    """A help or docstring paragraph as plain markdown text (dedented, blank-line separated)."""
    return _escape_html(inspect.cleandoc(text or "").strip())




def _param_row(param) -> str | None:
    # typer ships its own copy of click, so parameters are told apart by kind, not by click's classes
    if param.param_type_name == "argument":
        name = param.metavar or (param.name or "").upper()
        kind = "argument" if param.required else "argument, optional"
        return f"| `{name}` | {kind} | {_cell(getattr(param, 'help', None) or '')} |"
    if param.param_type_name != "option" or getattr(param, "hidden", False):
        return None
    names = ", ".join(f"`{o}`" for o in [*param.opts, *getattr(param, "secondary_opts", [])])
    if param.name == "help" and not param.expose_value:
        return None
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    type_name = getattr(annotation, "__name__", None) or str(annotation or "").replace("typing.", "")
    kind = "flag" if getattr(param, "is_flag", False) else _cell(type_name)
    default = param.default
    shown = "" if default in (None, False, ()) or callable(default) else f" (default `{_cell(default)}`)"
    return f"| {names} | {kind} | {_cell(param.help or '')}{shown} |"


def _argument_usage(param) -> str:
    name = param.metavar or (param.name or "").upper()
    name += "..." if param.nargs == -1 else ""
    return name if param.required else f"[{name}]"


def _command_md(command, path: list[str], ctx) -> list[str]:
    out = [f"## `{' '.join(path)}`", ""]
    if command.help:
        out += [_block(command.help), ""]
    # usage spelled from the parameters: typer's own usage pieces carry its help-panel markup
    pieces = ["[OPTIONS]"] + [_argument_usage(p) for p in command.get_params(ctx) if p.param_type_name == "argument"]
    if hasattr(command, "list_commands"):
        pieces.append("COMMAND [ARGS]...")
    out += ["```", f"{' '.join(path)} {' '.join(pieces)}".rstrip(), "```", ""]
    rows = [r for r in (_param_row(p) for p in command.get_params(ctx)) if r]
    if rows:
        out += ["| parameter | kind | meaning |", "|---|---|---|", *rows, ""]
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                out += _command_md(sub, [*path, name], sub.context_class(sub, info_name=name, parent=ctx))
    return out


def cli_markdown() -> str:
    import typer.main

    from peerlake.cli import app

    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="peerlake")
    return "\n".join(_command_md(root, ["peerlake"], ctx))




def _product_files():
    for path in sorted(REPO.rglob("*.py")):
        rel = path.relative_to(REPO)
        if not NOT_PRODUCT & set(rel.parts) and "lake" not in rel.parts[1:2]:
            yield rel, path


def settings_markdown() -> str:
    found: dict[str, dict] = {}
    for rel, path in _product_files():
        try:
            tree = ast.parse(path.read_text(), filename=str(rel))
        except SyntaxError:
            continue
        funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
                continue
            name = node.args[0].value
            if not (isinstance(name, str) and re.fullmatch(r"PEERLAKE_[A-Z0-9_]+", name)):
                continue
            entry = found.setdefault(name, {"where": set(), "default": None, "doc": None})
            owner = next((f for f in funcs if f.lineno <= node.lineno <= (f.end_lineno or f.lineno)), None)
            module = rel.with_suffix("").as_posix().replace("/", ".")
            entry["where"].add(f"{module}.{owner.name}" if owner else module)
            if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and entry["default"] is None:
                entry["default"] = node.args[1].value
            if owner and entry["doc"] is None and ast.get_docstring(owner):
                entry["doc"] = ast.get_docstring(owner).split("\n\n")[0]
    out = ["| variable | default | read by | what it is |", "|---|---|---|---|"]
    for name in sorted(found):
        e = found[name]
        default = "" if e["default"] in (None, "") else f"`{_cell(e['default'])}`"
        where = "<br>".join(f"`{w}`" for w in sorted(e["where"]))
        out.append(f"| `{name}` | {default} | {where} | {_cell(e['doc'] or '')} |")
    return "\n".join(out)




def _type_name(tp) -> str:
    text = tp if isinstance(tp, str) else getattr(tp, "__name__", None) or str(tp)
    return str(text).replace("typing.", "").replace("datetime.datetime", "datetime")


def events_markdown() -> str:
    from peerlake.warehouse import events

    out = []
    upcast = getattr(events, "UPCASTERS", {})
    for name in sorted(events.EVENT_TYPES):
        cls = events.EVENT_TYPES[name]
        hints = typing.get_type_hints(cls)
        out += [f"## `{name}`", "",
                f"`{cls.__module__}.{cls.__qualname__}` · schema version {cls.schema_version}", ""]
        doc = cls.__doc__ if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}(") else ""
        if doc:
            out += [_block(doc), ""]
        ups = sorted(v for (t, v) in upcast if t == name)
        if ups:
            out += [f"Stored events of schema version {', '.join(map(str, ups))} are upcast when read.", ""]
        out += ["| field | type |", "|---|---|"]
        for f in dataclasses.fields(cls):
            out.append(f"| `{f.name}` | {_cell(_type_name(hints.get(f.name, f.type)))} |")
        out.append("")
    return "\n".join(out)




def marts_markdown() -> str:
    out = ["| mart | key | what it holds |", "|---|---|---|"]
    for yml in sorted((REPO / "dbt_project" / "models" / "marts").glob("*.yml")):
        for model in (yaml.safe_load(yml.read_text()) or {}).get("models", []):
            stated = [c for t in model.get("data_tests") or [] if isinstance(t, dict) and "column_checks" in t
                      for c in ((t["column_checks"] or {}).get("arguments") or {}).get("unique", [])]
            key = next(iter(stated), "") or next((c["name"] for c in model.get("columns", [])
                                                  if "unique" in (c.get("data_tests") or c.get("tests") or [])), "")
            out.append(f"| `{model['name']}` | {f'`{key}`' if key else ''} | {_cell(model.get('description', ''))} |")
    return "\n".join(out)


GENERATORS = {"cli": cli_markdown, "settings": settings_markdown, "events": events_markdown,
              "marts": marts_markdown}


def on_page_markdown(markdown: str, page, config, files) -> str:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    return MARKER.sub(lambda m: GENERATORS[m.group(1)](), markdown)
