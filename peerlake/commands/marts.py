"""`peerlake marts`: the published marts, each with what it holds, its key, its rows and its gate.

Read-only: the model ymls give the description and the key (the column tested `unique`), the
published DuckDB file the row counts (opened read-only), the candidate's status file whether the last
build passed the mart's gate. Nothing is parsed by dbt, so it answers in about a second."""

import re
from pathlib import Path

import typer

from peerlake.commands import command_group

# A sentence ends at . ! or ? before a space (descriptions start sentences with lowercase column
# names, so no capital is needed), except after an abbreviation: "e.g. demo" goes on.
_SENTENCE_END = re.compile(r"(?<![a-z]\.[a-z]\.)(?<!\bvs\.)(?<!\bcf\.)(?<!\betc\.)(?<!\bincl\.)(?<=[.!?])\s")


def first_sentence(text: str) -> str:
    return _SENTENCE_END.split(" ".join((text or "").split()), maxsplit=1)[0]


def mart_docs(project_dir: Path) -> dict[str, dict]:
    """mart -> {"description": its first sentence, "key": the columns tested unique}, from the
    marts' yml files (the same text dbt puts into its manifest)."""
    import yaml

    out = {}
    for path in sorted((project_dir / "models" / "marts").glob("*.yml")):
        for model in (yaml.safe_load(path.read_text()) or {}).get("models", []):
            key = [*_checked_unique(model), *(c["name"] for c in model.get("columns", [])
                                              if "unique" in _test_names(c.get("data_tests") or c.get("tests") or []))]
            out[model["name"]] = {"description": first_sentence(model.get("description", "")), "key": key}
    return out


def _checked_unique(model: dict) -> list[str]:
    """The columns a model's column_checks test states `unique` (dbt_project/macros/tests/column_checks.sql)."""
    return [c for t in model.get("data_tests") or [] if isinstance(t, dict) and "column_checks" in t
            for c in ((t["column_checks"] or {}).get("arguments") or {}).get("unique", [])]


def _test_names(tests: list) -> list[str]:
    return [t if isinstance(t, str) else next(iter(t)) for t in tests]


def _failed_marts(failed_gates: dict, marts: list[str], relations: dict | None = None) -> dict[str, list[str]]:
    """mart -> the gates of the last build that failed on it. A GX check is named gx_<suite>; a failed dbt
    test's model is noted beside it (`relations`); a status written before that was noted: the longest
    mart name the test's name holds."""
    from peerlake.expectations.gates import GATES

    out: dict[str, list[str]] = {}
    for gate in failed_gates:
        suite = gate.removeprefix("gx_")
        mart = GATES.get(suite) if gate.startswith("gx_") else (relations or {}).get(gate) or \
            max((m for m in marts if m in gate), key=len, default=None)
        if mart is not None:
            out.setdefault(mart, []).append(gate)
    return out


def published_marts(lake, project_dir: Path) -> list[dict]:
    """One row per mart in the published file: name, description, key, rows, gate, last build
    (warehouse.marts_reader's MartsUnreadable when there is no file to read)."""
    from peerlake.expectations.gates import GATES
    from peerlake.warehouse.marts_reader import published
    from peerlake.warehouse.publish import BUILDING, FAILED, candidate_status

    docs = mart_docs(project_dir)
    with published(lake.duckdb_path) as marts:
        names = sorted(marts.tables() & set(docs))
        rows = {n: marts.rows(f'select count(*) as n from "{n}"')[0]["n"] for n in names}
    suite_of = {model: suite for suite, model in GATES.items()}
    status = candidate_status(lake) or {}
    failed = _failed_marts(status.get("failed_gates") or {}, names, status.get("failed_relations")) \
        if status.get("state") == FAILED else {}
    out = []
    for n in names:
        if n in failed:
            last = f"FAILED ({', '.join(failed[n])}): the published rows are older"
        elif status.get("state") == FAILED:
            last = "passed when published; the last build failed on another mart"
        elif status.get("state") == BUILDING:
            last = "passed when published; a build is running"
        else:
            last = "passed"
        out.append({"mart": n, "what it holds": docs[n]["description"], "key": ", ".join(docs[n]["key"]),
                    "rows": rows[n], "gate": f"GX {suite_of[n]}" if n in suite_of else "dbt tests only",
                    "last build": last})
    return out


@command_group("marts", listed=90)
def register(app: typer.Typer) -> None:
    @app.command("marts", rich_help_panel="Results")
    def marts() -> None:
        """The published marts: what each holds, its key, its rows and its gate (a Great Expectations
        suite, or its dbt tests only) and whether the last build passed it. Query them with
        `peerlake query "select * from MART"`."""
        from peerlake.console import console, print_rows
        from peerlake.dbt_project import PROJECT_DIR
        from peerlake.warehouse import Lake
        from peerlake.warehouse.marts_reader import MartsUnreadable

        lake = Lake.default()
        try:
            rows = published_marts(lake, PROJECT_DIR)
        except MartsUnreadable as exc:
            console.print(f"{exc}.", highlight=False, soft_wrap=True, markup=False)
            raise typer.Exit(1) from None
        for r in rows:  # one line each: the rest of the description is in the model's yml and the docs
            if len(r["what it holds"]) > 100:
                r["what it holds"] = r["what it holds"][:99].rsplit(" ", 1)[0] + " …"
        rows.sort(key=lambda r: (not r["rows"], r["mart"]))  # the marts with rows first, by name
        empty = sum(1 for r in rows if not r["rows"])
        print_rows(rows, title=f"published marts ({lake.duckdb_path})", grid=True)
        if empty:
            console.print(f"{empty} of {len(rows)} marts have no rows: this lake's studies measure nothing they "
                          "hold (the docs say what fills each).", highlight=False, soft_wrap=True)
        console.print('Rows of one: `peerlake query "select * from MART limit 10"`; where a number comes from: '
                      "`peerlake audit MART KEY`.", highlight=False, soft_wrap=True)
