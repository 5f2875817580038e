"""Reading the published marts (`Lake.duckdb_path`, which only warehouse.publish writes): the file
opened read-only, rows as dicts, and one wording for each reason it cannot answer, saying what to run.

- `published(path)` opens the file for several queries; `rows(path, sql, params)` runs one.
- `MartsUnreadable` is every refusal: `NoMarts` (no file yet), `CannotOpen` (another process holds it
  for writing, or it is no DuckDB file), `NoMart` (a table or column this reads is missing: the file
  was published by an older build).

`peerlake query` opens the same file through its own locked-down connection (peerlake.console), and
says these same messages.
"""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb


class MartsUnreadable(RuntimeError):
    """The published marts cannot answer; the message says what to run."""


class NoMarts(MartsUnreadable):
    def __init__(self, path: Path):
        super().__init__(f"No published marts yet (no database at {path}): run `peerlake build` or "
                         "`peerlake run STUDY` (or `make demo` for the demo study)")


class CannotOpen(MartsUnreadable):
    def __init__(self, path: Path, exc: Exception):
        super().__init__(f"cannot open {path} read-only: {_first_line(exc)}; another process may hold it "
                         "open for writing: retry when it has finished")


class NoMart(MartsUnreadable):
    def __init__(self, path: Path, exc: duckdb.Error):
        table = re.search(r"Table with name (.+?) does not exist", str(exc))
        super().__init__(f"{path} has no {table[1]} table: run `peerlake build`" if table else
                         f"{path} holds marts of an older build ({_first_line(exc)}): run `peerlake build`")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


@dataclass(frozen=True)
class Marts:
    """An open, read-only published file."""

    path: Path
    con: duckdb.DuckDBPyConnection

    def rows(self, sql: str, params: list | dict | None = None) -> list[dict]:
        """The rows of one SELECT, each a dict by column name (NoMart when a table or column is missing)."""
        try:
            cur = self.con.execute(sql, params)
        except (duckdb.CatalogException, duckdb.BinderException) as exc:
            raise NoMart(self.path, exc) from None
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def tables(self) -> set[str]:
        """The names of the file's tables (the marts; a view is not one)."""
        return {r["table_name"] for r in self.rows(
            "select table_name from information_schema.tables where table_type = 'BASE TABLE'")}


@contextmanager
def published(path: Path | str) -> Iterator[Marts]:
    """The DuckDB file at `path` opened read-only, closed on leaving (NoMarts, CannotOpen)."""
    path = Path(path)
    if not path.is_file():
        raise NoMarts(path)
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise CannotOpen(path, exc) from exc
    try:
        yield Marts(path, con)
    finally:
        con.close()  # DuckDB keeps a file's instance per process while a connection to it is open


def rows(path: Path | str, sql: str, params: list | dict | None = None) -> list[dict]:
    """The rows of one SELECT over the published file at `path`, each a dict (MartsUnreadable)."""
    with published(path) as marts:
        return marts.rows(sql, params)
