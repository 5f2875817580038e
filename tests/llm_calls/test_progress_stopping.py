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


def test_a_serial_provider_s_waiting_calls_are_not_said_to_be_in_flight():
    """The embedded model answers one call at a time: of two calls started, one is answered, one waits."""
    hosted, local = Counts(total=4, to_make=4, stats=None), Counts(total=4, to_make=4, stats=None, serial=True)
    assert hosted.flight() == local.flight() == ""
    hosted.started = local.started = 2
    assert hosted.flight() == " · 2 in flight"
    assert local.flight() == " · 1 in flight, 1 waiting for the model"
    local.new = 1  # one answered: the other is the one in flight now
    assert local.flight() == " · 1 in flight"
