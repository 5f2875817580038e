"""The diff page (#diff), computed read-only when the lists are written: the published marts against the
build kept before them (audit.builds_diff.compare_published(lake, "prev"), what `peerlake diff --build prev`
prints), and for each study with a judge panel (two or more judge_label in dim_judge_configs) its primary
configuration against each other one (audit.judge_diff, `peerlake diff STUDY --judges A B`), the reviews
that moved most with both judgments' calls. A part that cannot be computed is a message in its place:
the viewer serves its calls whatever a diff says."""

import logging

from peerlake.warehouse.marts_reader import MartsUnreadable, published

log = logging.getLogger(__name__)

EXAMPLES = 5  # example keys per kind and mart (`peerlake diff --build prev --limit N` shows more)
TOP = 10  # the reviews that moved most, per pair of judges
HOW = ("A build's published marts are kept when it is published (the last $PEERLAKE_KEEP_BUILDS builds, "
       "default 5): the next publish (`peerlake build` or `peerlake run STUDY`) keeps one, and the publish "
       "after it can be compared with it.")


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def builds(lake) -> dict:
    """{"report": compare_published's dict} or {"error", "detail"?, "how"?}."""
    from peerlake.audit.builds_diff import compare_published
    from peerlake.warehouse import settings
    from peerlake.warehouse.builds import BuildUnknown

    try:
        if settings.keep_builds() == 0:
            return {"error": "No builds are kept: $PEERLAKE_KEEP_BUILDS is 0.",
                    "how": "Set PEERLAKE_KEEP_BUILDS to 2 or more; " + HOW}
        return {"report": compare_published(lake, "prev", limit=EXAMPLES)}
    except BuildUnknown as exc:
        return {"error": "No build is kept from before the published one: nothing to compare it with.",
                "detail": exc.args[0], "how": HOW}
    except MartsUnreadable as exc:
        return {"error": str(exc)}
    except Exception as exc:  # a snapshot pruned or damaged meanwhile, a bad setting: a message, never a crash
        log.warning("the build diff could not be computed: %s", _first_line(exc))
        return {"error": f"The diff with the build before could not be computed ({_first_line(exc)}); "
                         "`peerlake diff --build prev` says the same in a terminal."}


def panels(marts, study: str | None) -> dict[str, list[str]]:
    """study -> its judge labels, the primary first, for each study with two or more (or only `study`)."""
    out: dict[str, list[str]] = {}
    for r in marts.rows("""select study_id, judge_label from dim_judge_configs
                           where judge_label is not null and (? is null or study_id = ?)
                           group by study_id, judge_label
                           order by study_id, bool_or(is_primary) desc nulls last, judge_label""", [study, study]):
        out.setdefault(r["study_id"], []).append(r["judge_label"])
    return {s: labels for s, labels in out.items() if len(labels) >= 2}


def judges(db, study: str | None = None, top: int = TOP) -> dict:
    """{"studies": [{study, labels, pairs: [judge_diff's as_json(), or {judge_a, judge_b, error}]}]} or
    {"error"}; no study with a panel is an empty list."""
    from peerlake.audit.judge_diff import judge_diff

    if db is None:
        return {"error": "No published marts to compare judges in."}
    try:
        with published(db) as marts:
            if "dim_judge_configs" not in marts.tables():
                return {"error": "The published marts have no dim_judge_configs (built by `peerlake build`): "
                                 "no judge panel to compare."}
            out = []
            for name, labels in panels(marts, study).items():
                pairs = []
                for other in labels[1:]:
                    try:
                        pairs.append(judge_diff(marts, name, labels[0], other, top=top).as_json())
                    except Exception as exc:  # one pair that cannot be read leaves the others
                        log.warning("judge diff %s %s %s: %s", name, labels[0], other, _first_line(exc))
                        pairs.append({"judge_a": labels[0], "judge_b": other, "error": str(exc)})
                out.append({"study": name, "labels": labels, "pairs": pairs})
            return {"studies": out}
    except MartsUnreadable as exc:
        return {"error": str(exc)}
    except Exception as exc:  # a file of an older build, a locked file: a message, never a crash
        log.warning("the judge diff could not be computed: %s", _first_line(exc))
        return {"error": f"The judge panels could not be compared ({_first_line(exc)})."}


def diff_page(lake, db, study: str | None = None) -> dict:
    """The data of the diff page: {"builds": builds(), "judges": judges(), "study": the viewer's --study}."""
    return {"builds": builds(lake), "judges": judges(db, study), "study": study}
