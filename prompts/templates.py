"""Prompt templates as files: a header naming the output schema, then `system` and `user` blocks.

A template's hash is the SHA-256 of its file text, so any edit (even whitespace) is a new prompt
version and everything produced with the old one stays attributable to it.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

PROMPTS_DIR = Path(__file__).resolve().parent


def _root(root: Path | None) -> Path:
    from peerlake.warehouse import settings

    return root or settings.prompts_dir() or PROMPTS_DIR
ROLES = ("system", "user")
_HEADER = re.compile(r"^\{#-?(.*?)-?#\}", re.S)
# `{{ cache_breakpoint }}` in a block marks the end of a prefix worth caching: the rendered message
# gets "cache_breakpoint": <characters of its content before the mark> (the convention is described
# in llm_calls/prompt_cache.py, which this layer may not import). The marker text itself never
# reaches a message; NUL characters cannot come from a manuscript's text layer.
CACHE_BREAKPOINT_KEY = "cache_breakpoint"
_MARK = "\x00peerlake-cache-breakpoint\x00"


class TemplateError(ValueError):
    """A template or schema file is missing or malformed, or rendering lacked a variable."""


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    path: Path
    source: str
    header: dict[str, str]
    output_schema: dict[str, Any] | None = field(repr=False)  # None: free text (`output_schema: none`)

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    @property
    def version(self) -> str:
        return self.header["version"]

    @property
    def output_schema_name(self) -> str:
        return self.header["output_schema"]

    def render(self, **ctx: Any) -> tuple[dict[str, Any], ...]:
        """Chat messages ({"role", "content"}, + "cache_breakpoint" where the block marks one) for the
        system and user blocks."""
        env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                                 keep_trailing_newline=False)
        try:
            tmpl = env.from_string(self.source)
            context = tmpl.new_context({**ctx, CACHE_BREAKPOINT_KEY: _MARK})
            messages = tuple(self._message(role, "".join(tmpl.blocks[role](context))) for role in ROLES)
        except jinja2.UndefinedError as exc:
            raise TemplateError(f"template {self.name} ({self.path}): missing variable: {exc}") from None
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(f"template {self.name} ({self.path}) line {exc.lineno}: {exc}") from None
        return messages

    def _message(self, role: str, rendered: str) -> dict[str, Any]:
        marks = rendered.count(_MARK)
        if marks == 0:
            return {"role": role, "content": rendered.strip()}
        if marks > 1:
            raise TemplateError(f"template {self.name} ({self.path}): more than one cache_breakpoint in block {role}")
        before, after = rendered.split(_MARK)
        content = (before + after).strip()
        at = min(len(before.lstrip()), len(content))  # content[:at] is exactly the text before the mark
        message: dict[str, Any] = {"role": role, "content": content}
        if at > 0:  # a mark before any text would cache nothing
            message[CACHE_BREAKPOINT_KEY] = at
        return message


def _parse_header(text: str, path: Path) -> dict[str, str]:
    m = _HEADER.match(text)
    if not m:
        raise TemplateError(f"{path}: must start with a {{# … #}} header naming name, version, output_schema")
    header = {}
    for line in m.group(1).strip().splitlines():
        key, sep, value = line.partition(":")
        if sep:
            header[key.strip()] = value.strip()
    missing = [k for k in ("name", "version", "output_schema") if not header.get(k)]
    if missing:
        raise TemplateError(f"{path}: header lacks {', '.join(missing)}")
    if header["name"] != path.stem:
        raise TemplateError(f"{path}: header name {header['name']!r} differs from the file name")
    return header


def load_schema(name: str, root: Path | None = None) -> dict[str, Any]:
    path = _root(root) / "schemas" / f"{name}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TemplateError(f"output schema {name!r}: cannot read {path} ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise TemplateError(f"output schema {path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


def _template_root(name: str, root: Path | None) -> Path:
    """The folder whose templates/ holds `name`: `root`, else the prompts folder, else the first plug-in
    folder ($PEERLAKE_PLUGINS) that has it; a plug-in's template never shadows a built-in one."""
    if root is not None:
        return root
    from peerlake.warehouse import settings

    main = _root(None)
    if (main / "templates" / f"{name}.j2").is_file():
        return main
    return next((d for d in settings.plugin_dirs() if (d / "templates" / f"{name}.j2").is_file()), main)


def load_template(name: str, root: Path | None = None) -> PromptTemplate:
    """Template `<root>/templates/<name>.j2` with its schema `<root>/schemas/<output_schema>.json`
    (without `root`: the prompts folder's, else a plug-in folder's)."""
    root = _template_root(name, root)
    path = root / "templates" / f"{name}.j2"
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TemplateError(f"prompt template {name!r}: cannot read {path} ({exc.strerror or exc})") from None
    header = _parse_header(source, path)
    try:
        parsed = jinja2.Environment().parse(source)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"{path} line {exc.lineno}: {exc.message}") from None
    blocks = {b.name for b in parsed.find_all(jinja2.nodes.Block)}
    if missing := [r for r in ROLES if r not in blocks]:
        raise TemplateError(f"{path}: missing {{% block {missing[0]} %}}")
    # `output_schema: none`: the answer is free text (a reviewer system's notes or summary)
    schema = None if header["output_schema"] == "none" else load_schema(header["output_schema"], root)
    return PromptTemplate(name=name, path=path, source=source, header=header, output_schema=schema)


def list_templates(root: Path | None = None) -> list[str]:
    return sorted(p.stem for p in (_root(root) / "templates").glob("*.j2"))
