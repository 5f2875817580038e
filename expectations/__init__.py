"""Great Expectations gates on the dbt marts: one suite per module, run by `gates.run_gate`."""

from peerlake.expectations.gates import GATES, INPUT_GATES, STATISTIC_GATES, GateResult, run_gate, validate_frame

__all__ = ["GATES", "INPUT_GATES", "STATISTIC_GATES", "GateResult", "run_gate", "validate_frame"]
