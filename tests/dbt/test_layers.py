"""dbt layers run one way: staging → intermediate → marts. Read off the model files themselves, so a
new model that reads the wrong layer fails here before anyone builds it."""

import re
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "dbt_project" / "models"
REF = re.compile(r"""ref\(\s*['"]([a-z0-9_]+)['"]\s*\)""")
SOURCE = re.compile(r"""source\(\s*['"]""")


def _models(layer: str) -> dict[str, str]:
    return {p.stem: p.read_text() for p in (MODELS / layer).iterdir() if p.suffix in (".sql", ".py")}


def test_every_model_sits_in_one_layer():
    names = [set(_models(layer)) for layer in ("staging", "intermediate", "marts")]
    assert not (names[0] & names[1] or names[0] & names[2] or names[1] & names[2])


def test_only_staging_reads_sources_and_staging_reads_nothing_else():
    for layer in ("intermediate", "marts"):
        readers = [name for name, text in _models(layer).items() if SOURCE.search(text)]
        assert readers == [], f"{layer} models calling source(): {readers}"
    for name, text in _models("staging").items():
        assert not REF.findall(text), f"staging model {name} reads {REF.findall(text)}"


def test_nothing_in_intermediate_reads_a_mart():
    marts = set(_models("marts"))
    bad = {name: sorted(set(REF.findall(text)) & marts) for name, text in _models("intermediate").items()}
    assert not {k: v for k, v in bad.items() if v}, f"intermediate models reading marts: {bad}"
