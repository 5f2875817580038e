"""Data versions from content, so Dagster marks downstream stale exactly when content changed."""

import hashlib
import json


def content_version(items) -> str:
    return hashlib.sha256(json.dumps(sorted(items), default=str).encode()).hexdigest()[:16]
