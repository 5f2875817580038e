"""The progress line says a run is stopping once it is asked to (Ctrl-C), not only that calls are in flight."""

from peerlake.llm_calls.progress import Counts
from peerlake.llm_calls.stopping import clear_stop, request_stop


def test_the_progress_text_says_stopping_after_a_stop_and_not_before():
    counts = Counts(total=4, to_make=4, stats=None)
    counts.started = 2
    assert "stopping" not in counts.line("depth: units") and counts.in_flight == 2
    request_stop()
    try:
        assert counts.line("depth: units").endswith("· stopping: no new call starts")
    finally:
        clear_stop()
    assert "stopping" not in counts.text()
