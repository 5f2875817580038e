"""DuckDB reading the lake's committed segments on S3-API object storage, through fsspec.

Every DuckDB connection that reads events goes through here: dbt's (the `Plugin` below, named in
dbt_project/profiles.yml, which also attaches the lake's database file) and Python readers'
(`connect()`, or `register()` on a connection made elsewhere). On a local lake both are plain DuckDB.

Why fsspec and not DuckDB's own httpfs extension: DuckDB 2.0.1 installs httpfs by downloading it on
first use, which an offline machine cannot do. s3fs speaks the same S3 API (AWS, MinIO, R2, GCS
interoperability) and DuckDB reads any registered fsspec filesystem, globs included. Where httpfs is
installable, `read_parquet('s3://…')` reads the same objects the same way.

A filesystem is made per connection: s3fs caches each folder's listing for the life of its instance,
so one connection (one dbt build) sees one snapshot of the committed segments, and the next sees the
segments sealed since.
"""

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from peerlake.warehouse import settings

if TYPE_CHECKING:
    from peerlake.warehouse.lake import Lake

SEGMENTS = "events/segments"
ENV_HINT = ("PEERLAKE_LAKE_URL and the object store's variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, "
            "AWS_SECRET_ACCESS_KEY, AWS_REGION)")


def _lake_url(lake: "Lake | None") -> str | None:
    # A given lake is remote when it says so (Lake.url); with none, the configured lake decides.
    if lake is None:
        return settings.lake_url()
    return getattr(lake, "url", None)


def is_remote(location: str) -> bool:
    return location.startswith("s3://")


def segments_url(lake: "Lake | None" = None) -> str:
    """Where the committed segments are: `<lake url>/events/segments` on object storage, else the
    local folder `<root>/events/segments` (the configured lake when `lake` is None)."""
    url = _lake_url(lake)
    if url:
        return f"{url.rstrip('/')}/{SEGMENTS}"
    root = lake.root if lake is not None else settings.lake_root()
    return str(Path(root) / SEGMENTS)


def segment_glob(event_type: str, lake: "Lake | None" = None) -> str:
    """The glob over every file in one event type's partition, for `read_parquet` on a connection from
    `connect()` (local path or s3:// URL alike). It also matches a file no manifest commits (a forged
    one, an interrupted seal's): read events with `committed_segments` instead."""
    return f"{segments_url(lake)}/event_type={event_type}/*.parquet"


def committed_segments(event_type: str, lake: "Lake | None" = None) -> str:
    """A table expression over the segments of `event_type` that a manifest commits, with every column:
    what dbt's `events` source reads (dbt_project/models/staging/_events__sources.yml builds the same
    expression; tests/dbt/test_remote_segments.py checks they read the same rows). The manifests are read
    at query time, so a view over it never reads a file dropped into the partition by anyone else."""
    segments = segments_url(lake)
    return (f"(select * exclude (filename) from read_parquet('{segments}/event_type={event_type}/*.parquet', "
            "union_by_name=true, hive_partitioning=true, filename=true) "
            "where parse_filename(filename) in (select parse_filename(path) from (select "
            "unnest(json_extract_string(content, '$.segments[*].path')) as path from "
            f"read_text('{segments.removesuffix('segments')}manifests/*.json')) "
            f"where path like 'events/segments/event_type={event_type}/%'))")


@functools.cache
def _filesystem_class() -> type:
    import s3fs  # only a remote lake pays for the import

    class LakeS3FileSystem(s3fs.S3FileSystem):
        """s3fs plus `modified()`, which DuckDB asks of every file it reads (s3fs leaves it out, and
        DuckDB then fails with "s3: modified() is not implemented")."""

        def modified(self, path: str) -> Any:
            return self.info(path)["LastModified"]

    return LakeS3FileSystem


def filesystem() -> Any:
    """A fresh S3 filesystem for the configured object store (settings.object_store_options()).
    Credentials left unset fall through to the AWS default chain (instance role, ~/.aws)."""
    opts = settings.object_store_options()
    return _filesystem_class()(
        key=opts.access_key_id, secret=opts.secret_access_key, endpoint_url=opts.endpoint_url,
        client_kwargs={"region_name": opts.region},
        skip_instance_cache=True)  # fsspec would otherwise hand back one instance and its stale listings


def register(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Let `con` read s3:// paths. Idempotent: connections to one database file in one process share
    a DuckDB instance, and DuckDB refuses a second filesystem under the same name."""
    if not con.filesystem_is_registered("s3"):
        con.register_filesystem(filesystem())
    return con


def connect(database: str | Path = ":memory:", *, read_only: bool = False,
            lake: "Lake | None" = None) -> duckdb.DuckDBPyConnection:
    """`duckdb.connect`, able to read the lake's segments wherever they are. Use it for any
    connection that reads segments or queries a dbt view over them (staging and intermediate models
    are views: on a remote lake they read s3:// when queried, the published file included)."""
    con = duckdb.connect(str(database), read_only=read_only)
    if _lake_url(lake):
        try:
            register(con)
        except BaseException:
            con.close()
            raise
    return con


class LakeUnreachable(RuntimeError):
    """The object store holding the segments cannot be read with the configured settings."""


def check_readable(location: str, fs: Any | None = None) -> None:
    """Fail early, naming the settings, when `location` (an s3:// segments URL) cannot be read: a
    missing bucket, refused credentials, an unreachable endpoint. A lake nothing was sealed into yet
    passes (dbt then names the glob that matched nothing)."""
    if not is_remote(location):
        return
    fs = fs or filesystem()
    endpoint = settings.object_store_options().endpoint_url or "AWS"
    try:
        fs.ls(location)
    except FileNotFoundError:
        bucket = location[len("s3://"):].split("/", 1)[0]
        if not fs.exists(bucket):
            raise LakeUnreachable(f"the lake's segments at {location} cannot be read: bucket {bucket!r} does "
                                  f"not exist at {endpoint}; check {ENV_HINT}") from None
    except Exception as exc:
        raise LakeUnreachable(f"the lake's segments at {location} cannot be read from {endpoint}: "
                              f"{type(exc).__name__}: {exc}; check {ENV_HINT}") from exc


@functools.cache
def _plugin_class() -> type:
    # dbt is imported only by the dbt process that loads the plugin, not by every Python reader.
    from dbt.adapters.duckdb.plugins import BasePlugin

    class Plugin(BasePlugin):
        """dbt-duckdb plugin on every dbt connection (profiles.yml): attaches the lake's database file under
        the profile's `database` name and makes it the default, and on a remote lake registers the S3
        filesystem (cursors share it).

        Both locations are read from the environment when dbt connects (settings.dbt_duckdb_path,
        settings.dbt_segments_url), not rendered into the profile: dbt hashes the profile's connection
        fields into its partial-parse state and parses the whole project again when they change (~4 s
        per invocation), so a profile naming the lake's file made every lake parse from scratch. The
        segments URL is checked before anything else, so a misconfigured store fails the build at the
        start with the settings to fix, not with DuckDB's attempt to download httpfs."""

        def initialize(self, plugin_config: dict[str, Any]) -> None:
            # the profile's `database`: the catalog dbt names in every relation ("peerlake"."main"."…")
            self.database = self.creds.database if self.creds is not None else "peerlake"

        def configure_connection(self, conn: duckdb.DuckDBPyConnection) -> None:
            segments = settings.dbt_segments_url() or ""
            if is_remote(segments):
                fs = filesystem()
                check_readable(segments, fs)
                if not conn.filesystem_is_registered("s3"):
                    conn.register_filesystem(fs)
            path = str(settings.dbt_duckdb_path()).replace("'", "''")
            conn.execute(f'attach \'{path}\' as "{self.database}"')
            conn.execute(f'use "{self.database}"')
            # where DuckDB spills what does not fit in memory: beside the file, as when dbt opened the
            # file itself (an in-memory connection would spill into ./.tmp, wherever dbt was started)
            conn.execute(f"set temp_directory = '{path}.tmp'")
            limit = settings.dbt_memory_limit().replace("'", "''")
            conn.execute(f"set memory_limit = '{limit}'")

        def configure_cursor(self, cursor: Any) -> None:
            # A cursor is a new connection to the same instance: it starts in the in-memory catalog.
            cursor.execute(f'use "{self.database}"')

    return Plugin


def __getattr__(name: str) -> Any:
    # dbt-duckdb looks up `Plugin` on this module (hasattr, then a call): built on first access.
    if name == "Plugin":
        return _plugin_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
