"""An empty mart passes its gate without a Great Expectations run (expectations.gates.validate_frame).
That shortcut is only right while GX itself passes every suite on no rows: this runs GX for real on an
empty frame of each suite, so a table-level expectation (a row count, say) added later fails here first."""

import pandas as pd
import pytest

from peerlake.expectations.gates import SUITES, _validate, validate_frame


def _empty(module) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype="object") for c in module.COLUMNS})


@pytest.mark.parametrize("name", sorted(SUITES))
def test_gx_passes_every_suite_on_an_empty_mart(name):
    module = SUITES[name]
    frame = _empty(module)
    if hasattr(module, "derive"):
        frame = module.derive(frame.copy())
    result = _validate(name, module.expectations(), frame, module.KEY)
    assert result.success, [r.expectation_config.type for r in result.results if not r.success]
    short = validate_frame(name, _empty(module))
    assert short.success and short.statistics["rows"] == 0
    assert short.statistics["evaluated_expectations"] == len(module.expectations())
