"""What `peerlake query` lets through: read statements over the published marts, nothing beyond them.

Two locks, because either alone leaves a hole (both seen with DuckDB 2.0.1):
- DuckDB's own parser classifies each statement and only SELECTs run (WITH …, FROM-first, DESCRIBE,
  SHOW, SUMMARIZE and VALUES parse as SELECT). A database opened read-only still lets COPY … TO and
  EXPORT DATABASE write files, into the lake's segments folder too, where a forged segment would pass
  `verify`; and EXPLAIN ANALYZE runs the statement it explains.
- The connection is closed to files before the query runs: external access off except the lake's
  segments (the staging views read them), no extension installed or loaded, and the configuration
  locked, so no statement can SET any of it back. That stops read_text('/etc/…'), read_csv, glob,
  getenv and ATTACH inside a SELECT.
"""

import duckdb

READ_ONLY = "`peerlake query` runs read statements only (SELECT)"
T = duckdb.StatementType
_WHY = {
    T.COPY: "reads or writes files",
    T.EXPORT: "writes files",
    T.LOAD: "installs or loads an extension",
    T.ATTACH: "opens another database",
    T.DETACH: "closes a database",
    T.SET: "changes a setting",
    T.PRAGMA: "changes settings or runs a command",
    T.CALL: "runs a procedure",
    T.EXPLAIN: "can run the statement it explains (EXPLAIN ANALYZE)",
    **dict.fromkeys((T.CREATE, T.INSERT, T.UPDATE, T.DELETE, T.DROP, T.ALTER, T.VACUUM, T.MULTI),
                    "changes the database; `peerlake build` makes the marts"),
}
_INSTEAD = {T.COPY: "use --format csv > file", T.EXPORT: "use --format csv > file",
            T.CALL: "use SELECT * FROM the table function"}


class QueryRefused(ValueError):
    """SQL with a statement that is not a read; one line per refused statement."""


def read_statements(sql: str) -> list:
    """The statements of `sql` if every one is a SELECT; else QueryRefused naming each other one (so
    one bad statement among several runs none). A syntax error is DuckDB's ParserException."""
    try:
        statements = duckdb.extract_statements(sql)
    except ValueError as exc:  # a statement kind this duckdb's Python enum does not know
        raise QueryRefused(f"refused: a statement DuckDB could not classify ({exc}); {READ_ONLY}") from None
    if not statements:
        raise QueryRefused("refused: no statement to run; give a SELECT, e.g. \"select * from cost_by_model\"")
    refused = [f"refused{f' (statement {i} of {len(statements)})' if len(statements) > 1 else ''}: "
               f"{_head(s.query)} {_WHY.get(s.type, 'is not a read statement')}; {READ_ONLY}"
               + (f"; {_INSTEAD[s.type]}" if s.type in _INSTEAD else "")
               for i, s in enumerate(statements, 1) if s.type != T.SELECT]
    if refused:
        raise QueryRefused("\n".join(refused))
    return statements


def _head(query: str, width: int = 40) -> str:
    text = " ".join(query.split()).rstrip(";")
    return text if len(text) <= width else text[:width].rstrip() + " …"


def lock_down(con: duckdb.DuckDBPyConnection, readable: list[str]) -> duckdb.DuckDBPyConnection:
    """Close `con` to every file but its database and the folders in `readable` (prefixes ending in
    '/'), to extension installs and loads, and to any later change of these settings."""
    # allowed_directories first: it cannot change once external access is off.
    con.execute("set allowed_directories = ?", [readable])
    for setting in ("enable_external_access", "autoinstall_known_extensions", "autoload_known_extensions"):
        con.execute(f"set {setting} = false")
    con.execute("set lock_configuration = true")
    return con
