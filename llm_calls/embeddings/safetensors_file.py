"""Read a .safetensors file into numpy arrays without the `safetensors` package: the format is an
8-byte little-endian header length, a JSON header {name: {dtype, shape, data_offsets}}, then the raw
little-endian tensor bytes (offsets relative to the end of the header)."""

import json
import struct
from pathlib import Path

import numpy as np

DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4", "I8": "i1", "U8": "u1"}
_MAX_HEADER = 100 << 20  # the format's own limit; a larger length means a corrupt or foreign file


class SafetensorsError(ValueError):
    pass


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """name → array (read-only views over one buffer; copy before writing into one)."""
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise SafetensorsError(f"{path}: shorter than a header")
    (n,) = struct.unpack("<Q", data[:8])
    if n > _MAX_HEADER or 8 + n > len(data):
        raise SafetensorsError(f"{path}: header length {n} does not fit the file")
    header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = DTYPES.get(spec["dtype"])
        if dtype is None:
            raise SafetensorsError(f"{path}: {name} has unsupported dtype {spec['dtype']}")
        start, end = spec["data_offsets"]
        shape = tuple(spec["shape"])
        count = int(np.prod(shape)) if shape else 1
        if not 0 <= start <= end <= len(body) or end - start != count * np.dtype(dtype).itemsize:
            raise SafetensorsError(f"{path}: {name} offsets {start}..{end} do not match shape {shape}")
        out[name] = np.frombuffer(body[start:end], dtype=dtype).reshape(shape)
    return out
