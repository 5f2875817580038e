"""The gateway knows the lake only through its interface (locks, append, blobs): no flock, O_APPEND,
fsync or rename of its own, so moving the lake to object storage does not touch llm_calls/."""

import ast
from pathlib import Path

LLM_CALLS = Path(__file__).resolve().parents[2] / "llm_calls"
# The model-file caches are this machine's cache, not the lake: the GGUF models and the embedding model.
MACHINE_CACHE = {"local_model.py", "embeddings/install.py"}
FS_MODULES = {"fcntl", "peerlake.warehouse.fsutil"}
FS_CALLS = {("os", "open"), ("os", "fsync"), ("os", "replace"), ("os", "rename"), ("fcntl", "flock")}
LAKE_PATHS = {"locks_dir", "wal_dir", "segments_dir", "manifests_dir", "blobs_dir", "seal_lock"}


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name in FS_MODULES]
        elif isinstance(node, ast.ImportFrom):
            if node.module in FS_MODULES or any(a.name == "file_lock" for a in node.names):
                found.append(f"from {node.module} import …")
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and (node.value.id, node.attr) in FS_CALLS:
                found.append(f"{node.value.id}.{node.attr}")
            if node.attr in LAKE_PATHS:
                found.append(f".{node.attr}")
    return [f"{path.name}:{o}" for o in found]


def test_llm_calls_make_no_local_file_system_assumptions():
    files = [p for p in LLM_CALLS.rglob("*.py") if p.relative_to(LLM_CALLS).as_posix() not in MACHINE_CACHE]
    assert files
    assert [o for p in files for o in _offences(p)] == []
