"""Study files in the lake (warehouse.studies): a built-in study is written on first use (and upgraded
from an earlier release's text), a user's study is saved only if it parses."""

import hashlib
from collections.abc import Iterable
from pathlib import Path

from peerlake.studies.builtin import BUILTIN_STUDIES, OLD_SHA256, builtin_text
from peerlake.studies.parse import did_you_mean, parse_study
from peerlake.studies.spec import Study
from peerlake.warehouse import EventLog
from peerlake.warehouse.studies import StudyFiles


def unknown_study(lake, name: str, also: Iterable[str] = ()) -> str | None:
    """Why `name` names no study of this lake (its study files, the built-in studies, and `also`: say the
    studies the published marts hold), with the closest known name; None when it names one."""
    files = StudyFiles(lake)
    if name in BUILTIN_STUDIES or name in set(also) or files.exists(name):
        return None
    # The built-in studies count as known before their first run writes their file.
    known = sorted(set(files.names()) | set(BUILTIN_STUDIES) | set(also))
    return (f"no study {name!r} in this lake; {did_you_mean([name], set(known))}"
            f"known: {', '.join(known)}; create one with `peerlake study new {name} ...`")


def load_study(log: EventLog, name: str) -> Study:
    """The study file from the lake; the built-in studies (studies.builtin) are written on first use."""
    files = StudyFiles(log.lake)
    if (why := unknown_study(log.lake, name)) is not None:
        raise FileNotFoundError(why)
    if name in BUILTIN_STUDIES and (not files.exists(name) or hashlib.sha256(files.read(name).encode()).hexdigest()
                                    in OLD_SHA256.get(name, ())):
        files.write(name, builtin_text(name))
    return parse_study(name, files.read(name))


def save_study(log: EventLog, name: str, text: str) -> Path:
    parse_study(name, text)
    return StudyFiles(log.lake).write(name, text)
