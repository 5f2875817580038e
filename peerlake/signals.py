"""Ctrl-C and SIGTERM for the commands that run the pipeline, and for the Dagster UI's processes.

A run: the first SIGINT or SIGTERM asks it to stop (llm_calls.stopping): no new model call starts,
the calls in flight finish and are recorded, then the run ends; the second stops the process at once.
A build (`peerlake build`, or the build after a study's run): the first signal goes on to the running
dbt as SIGINT (dbt cancels its queries and exits), no further dbt step or gate starts, and nothing is
published, so the published marts stay served; the second stops the process at once.
Nothing is half-written then: an event is one fsync'd line of this process's write-ahead file (a torn
last line is never read), and a seal commits by one manifest put; a call in flight is made again next
time (or replayed, if its answer was recorded).

Dagster's in-process execution, when it runs on the main thread, replaces the SIGINT and SIGTERM
handlers with its own, which turn a signal into an interrupt of the step and then retry the step
under its retry policy: the signal looked ignored, and the retry replayed the interrupted attempt's
calls as if another run had made them. So the pipeline runs in a worker thread (where Dagster leaves
the handlers alone) and the main thread keeps the handlers below."""

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from peerlake.llm_calls.stopping import is_building, request_stop

# The embedded model stops between tokens and hosted APIs' requests are abandoned (llm_calls.providers.base
# until_stopped): both within about a second, made again next time; a self-hosted server's call finishes.
STOPPING = ("stopping: no new call starts; calls in flight are cancelled and made again next time (a "
            "self-hosted server's finish first)… (again to stop at once)")
STOPPING_BUILD = ("stopping the build: dbt and the gates are cancelled and nothing will be published (the "
                  "published marts stay served)… (again to stop at once)")

_stopped_by: list[int] = []  # the signal that asked the current run to stop


def stopped_by() -> int | None:
    """The signal (SIGINT, SIGTERM) that stopped the last run of this process, if one did."""
    return _stopped_by[0] if _stopped_by else None


def exit_code(signum: int) -> int:
    return 128 + signum  # the shell's convention: 130 for SIGINT, 143 for SIGTERM


def run_stoppable(fn: Callable[..., Any], say: TextIO, flush: Callable[[], None] = lambda: None,
                  **kwargs) -> Any:
    """fn(**kwargs) in a worker thread, with SIGINT/SIGTERM handled here (see the module docstring).
    `say`: where the messages go (the terminal); `flush` runs before an immediate exit (the log file)."""
    if threading.current_thread() is not threading.main_thread():  # no signals to handle off the main thread
        return fn(**kwargs)
    _stopped_by.clear()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = fn(**kwargs)
        except BaseException as exc:  # re-raised on the main thread
            outcome["error"] = exc

    def handler(signum: int, _frame) -> None:
        if not _stopped_by:
            _stopped_by.append(signum)
            request_stop()
            if not is_building():
                _say(say, STOPPING)
                return
            _say(say, STOPPING_BUILD)
            # dbt (`dbt build`, `dbt parse`) handles SIGINT by cancelling its queries and exiting, which
            # fails its step, so the gates and the publishing that wait for it never run. Without this a
            # `kill -INT` (or SIGTERM) reaches only us and dbt goes on for minutes; a terminal's Ctrl-C
            # has reached dbt already, and a second SIGINT while it cancels only makes it exit sooner.
            # Only dbt: Dagster's compute-log tailers would print a KeyboardInterrupt traceback each.
            _kill(os.getpid(), _dbt_processes(), group=False, signum=signal.SIGINT)
            return
        _say(say, f"stopped at once ({signal.Signals(signum).name}); the calls that finished are in the log "
                  "and replay next time")
        flush()
        # what this run started goes too (dbt, the multiprocess executor's step processes): left behind,
        # a step process would go on calling models for a run that was told to stop
        _kill(os.getpid(), _descendants(os.getpid()), group=False)
        os._exit(exit_code(signum))  # not sys.exit: the worker thread would keep the process alive

    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, handler) for s in handled}
    try:
        worker = threading.Thread(target=work, name="peerlake-run", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.2)  # short waits: the handler runs between them
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _say(out: TextIO, text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(text, file=out, flush=True)


def run_process_group(cmd: list[str], grace_s: float = 20.0, env: dict | None = None) -> int:
    """Run `cmd` (a server that starts processes of its own: `dagster dev`'s webserver, daemon and code
    servers) in its own process group and session, and on SIGINT or SIGTERM stop the whole group: the
    signal to the group, then SIGKILL to what is left after `grace_s`. Waits until all of it exited;
    the command's exit code, or 128+signal when stopped."""
    import psutil

    proc = subprocess.Popen(cmd, start_new_session=True, env=env)  # a terminal's Ctrl-C reaches us only
    got: list[int] = []

    def handler(signum: int, _frame) -> None:
        got.append(signum)

    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, handler) for s in handled}
    try:
        while proc.poll() is None and not got:
            time.sleep(0.2)
        # what the server started, collected before the group is signalled (a child that starts its own
        # session leaves the group; psutil still finds it through its parent)
        tree = _descendants(proc.pid)
        if got:
            print(f"stopping the Dagster UI ({len(tree) + 1} processes)…", file=sys.stderr, flush=True)
            _signal_group(proc.pid, got[0], tree)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)
        tree += [p for p in _descendants(proc.pid) if p not in tree]
        _, alive = psutil.wait_procs(tree, timeout=max(0.0, grace_s / 2) if got else 0)
        if proc.poll() is None or alive:
            _kill(proc.pid, alive)
            proc.wait()
            psutil.wait_procs(alive, timeout=5)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    return exit_code(got[0]) if got else proc.returncode


def _descendants(pid: int) -> list:
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _dbt_processes() -> list:
    """This process's descendants that are dbt: `<venv>/bin/dbt …` (how dagster-dbt starts it)."""
    import psutil

    found = []
    for p in _descendants(os.getpid()):
        try:
            args = p.cmdline()
        except psutil.Error:
            continue
        if any(os.path.basename(a) == "dbt" for a in args[:2]):
            found.append(p)
    return found


def _signal_group(pid: int, signum: int, tree: list) -> None:
    import psutil

    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signum)  # the group: its leader is the server (start_new_session)
    for p in tree:  # and any descendant that left the group
        try:
            if os.getpgid(p.pid) != pid:
                p.send_signal(signum)
        except (ProcessLookupError, psutil.NoSuchProcess):
            pass


def _kill(pid: int, alive: list, group: bool = True, signum: int = signal.SIGKILL) -> None:
    import psutil

    if group:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signum)
    for p in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.send_signal(signum)
