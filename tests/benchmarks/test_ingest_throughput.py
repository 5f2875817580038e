"""benchmarks/ingest_throughput.py clocks ingest's parts by wrapping functions by name: a renamed function
(version 3 replaced `_extract_images` with `stored_images`, #50) would stop the benchmark at start-up."""

import importlib
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "ingest_throughput.py"


def _benchmark():
    spec = importlib.util.spec_from_file_location("ingest_throughput", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines only: main() runs under __main__
    return module


def test_every_clocked_part_names_a_function_that_exists():
    bench = _benchmark()
    assert "images" in bench._Clocks.PARTS
    for part, (module, attr) in bench._Clocks.PARTS.items():
        owner = importlib.import_module(module)
        for name in attr.split("."):
            owner = getattr(owner, name, None)
            assert owner is not None, f"{part}: {module}.{attr} does not exist"
        assert callable(owner), part
