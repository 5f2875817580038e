"""The Dagster instance's event storage for a lake: Dagster's own SQLite storage, with each shard's
connections kept open.

Dagster's SqliteEventLogStorage makes a new SQLAlchemy engine for every write (dialect set-up, no
statement cache), opens a connection, commits with a full fsync and closes it again: ~6.7 ms per event
measured here. A build stores ~2,600 run events and ~1,700 index rows (a check evaluation, a
materialization), so that was about a third of an empty-lake `peerlake build`. This class keeps one
engine and a small pool of open connections per shard (the run's file, the index), each connection
with `synchronous = NORMAL`: ~0.3–0.6 ms per event. Nothing else changes: the same files, tables,
migrations and rollback journal (so the UI's file watcher still sees each write), and every event is
still committed before `store_event` returns.

What NORMAL gives up: on a power loss (not a crashed or killed process) the last few Dagster events
may be lost, and SQLite's documentation allows a very small chance of a damaged file in rollback-journal
mode. This is Dagster's run history, not the lake's event log: the events, blobs and manifests that
are the record (warehouse/) keep their own fsyncs, and a lost Dagster event only means the next
`peerlake run` recomputes what the UI would have shown as materialized.
"""

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from dagster._core.storage.event_log.sqlite.sqlite_event_log import INDEX_SHARD_NAME, SqliteEventLogStorage
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import QueuePool

# Dagster's own busy timeout for its SQLite files (dagster._core.storage.sqlite).
BUSY_TIMEOUT_S = 15
# Shards whose engines stay open: a run's file and the index are what one process writes; the UI
# reads many runs, each evicted engine closes its connections.
OPEN_SHARDS = 8


class LakeEventLogStorage(SqliteEventLogStorage):
    """SqliteEventLogStorage with an engine and open connections kept per shard (module docstring)."""

    def __init__(self, base_dir: str, inst_data=None):
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_pid = os.getpid()
        self._engines_lock = threading.Lock()
        self._tables_seen: set[str] = set()
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> "LakeEventLogStorage":
        return cls(inst_data=inst_data, **config_value)  # the parent's names its own class

    def _engine(self, shard: str) -> Engine:
        with self._engines_lock:
            if self._engines_pid != os.getpid():  # a forked child: the parent's connections are not ours
                self._engines, self._engines_pid = OrderedDict(), os.getpid()
            engine = self._engines.get(shard)
            if engine is None:
                engine = create_engine(self.conn_string_for_shard(shard), poolclass=QueuePool, pool_size=1,
                                       max_overflow=4, connect_args={"timeout": BUSY_TIMEOUT_S,
                                                                     "check_same_thread": False})
                event.listen(engine, "connect", _pragmas)
                self._engines[shard] = engine
                while len(self._engines) > OPEN_SHARDS:
                    self._engines.popitem(last=False)[1].dispose()
            else:
                self._engines.move_to_end(shard)
            return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        # as the parent's: one writer at a time in this process, the schema made once per shard
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def has_table(self, table_name: str) -> bool:
        # Asked on every asset check event (supports_asset_checks); the parent builds an engine each time.
        # A table, once there, stays: only a yes is remembered.
        if table_name in self._tables_seen:
            return True
        engine = self._engine(INDEX_SHARD_NAME)
        with engine.connect() as conn:
            found = bool(engine.dialect.has_table(conn, table_name))
        if found:
            self._tables_seen.add(table_name)
        return found

    def dispose(self) -> None:
        with self._engines_lock:
            engines, self._engines = list(self._engines.values()), OrderedDict()
        for engine in engines:
            engine.dispose()
        super().dispose()


def _pragmas(dbapi_connection, _record) -> None:
    dbapi_connection.execute("pragma synchronous = NORMAL")
