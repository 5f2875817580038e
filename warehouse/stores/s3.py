"""The Store on S3-API object storage: keys relative to the lake URL's prefix.

Endpoint and credentials come from `settings.object_store_options()` (the standard AWS variables), so
any S3-API service works (AWS S3, MinIO, R2, GCS interoperability, the tests' moto server). The one
primitive the commit protocol rests on is `put_if_absent` (a conditional put, `If-None-Match: *`):
of several writers creating one key, exactly one succeeds. Failures that a user must fix (no bucket,
credentials refused, endpoint unreachable) raise ObjectStoreError naming the bucket, key and the fix.
"""

import os
import threading
from collections.abc import Iterator
from pathlib import Path

from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError, NoCredentialsError

from peerlake.warehouse import settings
from peerlake.warehouse.stores import ObjectInfo, ObjectMissing, ObjectStoreError

# A conditional put that lost: 412 when the key exists; 409 when another conditional write to the same
# key is in flight (AWS S3 reports that instead of waiting). Both mean "someone else created it".
_LOST_RACE = {"PreconditionFailed", "ConditionalRequestConflict", "412", "409"}
_MISSING = {"NoSuchKey", "404", "NotFound"}
_AUTH = {"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "403", "AuthorizationHeaderMalformed"}


def split_url(url: str) -> tuple[str, str]:
    """`s3://bucket/some/prefix` -> ("bucket", "some/prefix/"); the prefix is "" at the bucket root."""
    rest = url.removeprefix("s3://").strip("/")
    bucket, _, prefix = rest.partition("/")
    return bucket, (prefix.strip("/") + "/") if prefix else ""


_clients: dict[tuple, object] = {}
_clients_lock = threading.Lock()


def _client(opts: settings.ObjectStoreOptions):
    # One client per process and options: creating one costs ~0.1 s, and a client is thread-safe. Keyed
    # by pid too, because a forked child must not share its parent's connection pool.
    import boto3  # here, not at the top: every `import peerlake.warehouse` would pay ~0.1 s for a local lake
    from botocore.config import Config

    key = (opts, os.getpid())
    with _clients_lock:
        if key not in _clients:
            _clients[key] = boto3.session.Session().client(
                "s3", endpoint_url=opts.endpoint_url, region_name=opts.region,
                aws_access_key_id=opts.access_key_id, aws_secret_access_key=opts.secret_access_key,
                config=Config(retries={"max_attempts": 5, "mode": "standard"}, max_pool_connections=32,
                              connect_timeout=10, read_timeout=60))
        return _clients[key]


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


class S3Store:
    """The objects under one lake URL. Keys passed in and returned are relative to the URL's prefix."""

    shared = True
    local_files = in_place = False  # objects behind HTTP: copies kept in this machine's cache

    def __init__(self, url: str):
        self.url = url.rstrip("/")
        self.bucket, self.prefix = split_url(url)
        self.options = settings.object_store_options()
        self.client = _client(self.options)

    def uri(self, key: str) -> str:
        return f"s3://{self.bucket}/{self.prefix}{key}"

    def path(self, key: str) -> Path:
        raise ObjectStoreError(f"{self.uri(key)} is no file on this machine")

    # ---- errors ------------------------------------------------------------------------------
    def _fail(self, what: str, key: str, exc: Exception) -> ObjectStoreError:
        where = f"{self.uri(key)} (endpoint {self.options.endpoint_url or 'AWS default'})"
        if isinstance(exc, NoCredentialsError):
            return ObjectStoreError(f"cannot {what} {where}: no credentials; set AWS_ACCESS_KEY_ID and "
                                    "AWS_SECRET_ACCESS_KEY")
        if isinstance(exc, EndpointConnectionError):
            return ObjectStoreError(f"cannot {what} {where}: the endpoint does not answer; check "
                                    "AWS_ENDPOINT_URL and that the object store is running")
        if isinstance(exc, ClientError):
            code = _code(exc)
            if code == "NoSuchBucket":
                return ObjectStoreError(f"cannot {what} {where}: bucket {self.bucket!r} does not exist; create "
                                        f"it (e.g. `aws s3 mb s3://{self.bucket}`) or fix PEERLAKE_LAKE_URL")
            if code in _AUTH:
                return ObjectStoreError(f"cannot {what} {where}: the object store refused the credentials "
                                        f"({code}); check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and that "
                                        f"they may read and write bucket {self.bucket!r}")
            return ObjectStoreError(f"cannot {what} {where}: {code}: {exc}")
        return ObjectStoreError(f"cannot {what} {where}: {type(exc).__name__}: {exc}")

    # ---- objects -----------------------------------------------------------------------------
    def get(self, key: str) -> bytes:
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"].read()
        except ClientError as exc:
            if _code(exc) in _MISSING:
                raise ObjectMissing(f"{self.uri(key)} does not exist") from None
            raise self._fail("read", key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("read", key, exc) from exc

    def put(self, key: str, data: bytes) -> None:
        try:
            self.client.put_object(Bucket=self.bucket, Key=self.prefix + key, Body=data)
        except (ClientError, BotoCoreError) as exc:
            raise self._fail("write", key, exc) from exc

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create `key` with `data` unless it exists: True if this call created it, False if not."""
        try:
            self.client.put_object(Bucket=self.bucket, Key=self.prefix + key, Body=data, IfNoneMatch="*")
            return True
        except ClientError as exc:
            if _code(exc) in _LOST_RACE:
                return False
            raise self._fail("create", key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("create", key, exc) from exc

    def head(self, key: str) -> ObjectInfo | None:
        """Size and ETag of `key`, or None when it does not exist."""
        try:
            r = self.client.head_object(Bucket=self.bucket, Key=self.prefix + key)
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return None
            raise self._fail("look up", key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("look up", key, exc) from exc
        return ObjectInfo(key, int(r["ContentLength"]), str(r.get("ETag", "")).strip('"'))

    def exists(self, key: str) -> bool:
        return self.head(key) is not None

    def list(self, prefix: str, start_after: str | None = None) -> Iterator[ObjectInfo]:
        """Every object whose key starts with `prefix`, in key order (after `start_after` if given)."""
        kw = {"Bucket": self.bucket, "Prefix": self.prefix + prefix}
        if start_after:
            kw["StartAfter"] = self.prefix + start_after
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(**kw):
                for obj in page.get("Contents", []):
                    yield ObjectInfo(obj["Key"][len(self.prefix):], int(obj["Size"]), str(obj["ETag"]).strip('"'))
        except (ClientError, BotoCoreError) as exc:
            raise self._fail("list", prefix, exc) from exc

    def copy(self, src: str, dst: str) -> None:
        """Server-side copy (no bytes through this machine)."""
        try:
            self.client.copy_object(Bucket=self.bucket, Key=self.prefix + dst,
                                    CopySource={"Bucket": self.bucket, "Key": self.prefix + src})
        except ClientError as exc:
            if _code(exc) in _MISSING:
                raise ObjectMissing(f"cannot copy {self.uri(src)}: it does not exist") from None
            raise self._fail("copy to", dst, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("copy to", dst, exc) from exc

    def delete(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=self.prefix + key)
        except (ClientError, BotoCoreError) as exc:
            raise self._fail("delete", key, exc) from exc
