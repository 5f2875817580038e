"""`peerlake diff --build PREV`: what the published marts changed since a kept build, mart by mart and
key by key (audit.builds_diff over warehouse.builds' snapshots). `peerlake diff STUDY --judges A B`: two
judge configurations of one study on the same reviews (audit.judge_diff)."""

import json

import typer

from peerlake.commands import command_group


def _what(kind: str, example: dict | str) -> str:
    if kind == "changed":
        return "; ".join(f"{c['column']} {c['old']} → {c['new']}" for c in example["changes"])
    if kind == "moved":
        return "; ".join(f"{m['column']} {m['old']:.4g} → {m['new']:.4g}, outside [{m['old_low']:.4g}, "
                         f"{m['old_high']:.4g}]" for m in example["moves"])
    return ""


def _explained(mart: dict) -> str:
    """The prompt templates (and short hashes, * when new) whose calls reach a differing mart."""
    names = [f"{e['prompt_template']}@{(e['prompt_hash'] or '')[:8]}{'*' if e['new_hash'] else ''}"
             for e in mart.get("explained_by", [])]
    return ", ".join(names) + (" (lake-wide: no study column)" if mart.get("lake_wide") else "")


def print_since(since: dict, old_id: str) -> None:
    from peerlake.console import console, print_rows

    if since.get("note"):
        console.print(since["note"], highlight=False)
    elif not since["groups"]:
        console.print(f"no call or replay since build {old_id}: what changed comes from code or settings "
                      "(a model's SQL, a price table, a study file)", highlight=False)
    else:
        print_rows([{"prompt template": g["prompt_template"], "prompt hash": (g["prompt_hash"] or "")[:12] +
                     (" (new; before: " + ", ".join(h[:12] for h in g["hashes_before"]) + ")" if g["new_hash"]
                      and g["hashes_before"] else " (new)" if g["new_hash"] else ""),
                     "new calls": g["calls"], "new replays": g["replays"], "studies": ", ".join(g["studies"])}
                    for g in since["groups"]], title=f"events since build {old_id}", grid=True)


def print_report(report: dict) -> None:
    from peerlake.console import console, print_rows

    old, new = report["old"], report["new"]
    console.print(f"published marts ({'build ' + new['build_id'] if new['build_id'] else 'no snapshot kept'}) "
                  f"against build {old['build_id']} (published {old['published_at']}, chain head seq "
                  f"{old['chain_head_seq']})", highlight=False)
    if "since" in report:
        print_since(report["since"], old["build_id"])
    differ = [m for m in report["marts"] if m["status"] != "compared" or m["added"] or m["removed"]
              or m["changed"] or m["not_compared"]]
    if differ:
        print_rows([{"mart": m["mart"], "rows": f"{m['rows_old']} → {m['rows_new']}",
                     "added": m["added"], "removed": m["removed"], "changed": m["changed"],
                     "moved beyond CI": m["moved"], "explained by": _explained(m),
                     "not compared": "mart only in the " + ("new" if m["status"] == "only_new" else "old") + " build"
                     if m["status"] != "compared" else ", ".join(f"{c['column']} ({c['why']})"
                                                                  for c in m["not_compared"])}
                    for m in differ], title="what changed", grid=True)
    console.print(f"{len(report['marts']) - len(differ)} of {len(report['marts'])} marts unchanged", highlight=False)
    for m in differ:
        rows = [{"": kind, "key": ex if isinstance(ex, str) else ex["key"], "what": _what(kind, ex)}
                for kind in ("moved", "changed", "added", "removed") for ex in m["examples"].get(kind, [])]
        if rows:
            console.print(f"key: {' | '.join(m['key'])}" + (f" ({m['key_note']})" if m["key_note"] else ""),
                          highlight=False)
            print_rows(rows, title=m["mart"], grid=True)


def print_judges(diff) -> None:
    from peerlake.console import console, fmt, print_rows

    console.print(f"study {diff.study}: judge {diff.b} − judge {diff.a}, per system over the papers both judged "
                  "(paired paper-bootstrap 95% interval; fewer than 10 papers: means only)", highlight=False)
    if not diff.differences:
        console.print("(no review judged by both)")
    else:
        print_rows([{"judge": d["judge"], "metric": d["metric"], "system": d["system"], "papers": d["n_papers"],
                     diff.a: fmt(d["mean_a"]), diff.b: fmt(d["mean_b"]),
                     "difference [95% CI]": fmt(d["diff_b_minus_a"]) + (
                         f" [{fmt(d['ci_low'])}, {fmt(d['ci_high'])}]" if d["ci_low"] is not None else ""),
                     "Wilcoxon p": fmt(d["wilcoxon_p"]), "note": d["skip_reason"] or ""}
                    for d in diff.differences], title="paired differences", grid=True)
    if diff.moved:
        print_rows([{"judge": m["judge"], "metric": m["metric"], "review": m["review_key"], "system": m["system"],
                     diff.a: fmt(m["value_a"]), diff.b: fmt(m["value_b"]), "moved": fmt(m["diff_b_minus_a"])}
                    for m in diff.moved], title="the reviews that moved most (their judgments' call ids: --format "
                    "json; peerlake view links both calls from its page 'what changed')", grid=True)


def _judges(study: str | None, judges: tuple[str, str], metric: str | None, top: int, fmt: str) -> None:
    from peerlake.audit.judge_diff import JudgeUnknown, judge_diff
    from peerlake.warehouse import Lake, settings
    from peerlake.warehouse.marts_reader import MartsUnreadable, published

    if not study:
        typer.echo("error: --judges compares two judge configurations of one study: peerlake diff STUDY "
                   "--judges A B", err=True)
        raise typer.Exit(2)
    from peerlake.studies.files import unknown_study

    try:
        with published(settings.duckdb_path()) as marts:
            studies = [r["study_id"] for r in marts.rows("select distinct study_id from dim_judge_configs")]
            if (why := unknown_study(Lake.default(), study, also=studies)) is not None:
                typer.echo(f"error: {why}", err=True)
                raise typer.Exit(2)
            diff = judge_diff(marts, study, judges[0], judges[1], metric, top)
    except JudgeUnknown as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except MartsUnreadable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    if fmt == "json":
        print(json.dumps(diff.as_json(), indent=1, default=str))
    else:
        print_judges(diff)


@command_group("diff", listed=65)
def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Results")
    def diff(study: str = typer.Argument(None, help="with --judges: the study whose judges to compare"),
             build: str = typer.Option(None, "--build", help="the build to compare with: prev (the one before "
                                       "the published build), -N (N builds before it) or a build id"),
             judges: tuple[str, str] | None = typer.Option(None, "--judges", help="two judge configurations of "
                                                           "STUDY, as it names them (dim_judge_configs.judge_label)"),
             metric: str = typer.Option(None, "--metric", help="with --judges: only this metric"),
             top: int = typer.Option(10, "--top", min=0, help="with --judges: the reviews that moved most shown"),
             mart: list[str] = typer.Option(None, "--mart", help="only this mart (repeatable)"),
             limit: int = typer.Option(10, "--limit", min=0, help="example keys shown per kind and mart"),
             fmt: str = typer.Option("table", "--format", "-f", help="table | json")) -> None:
        """What changed: since an earlier build (--build), or between two judges of a study (STUDY --judges A B).

        --build: per mart and key, rows added, removed and changed (beyond 1e-9 relative), estimates that
        moved outside their old interval, and the columns a shape change left uncompared. The last
        $PEERLAKE_KEEP_BUILDS builds (default 5) are kept. --judges: per metric and system, B − A over the
        same reviews with a paired paper-bootstrap interval and Wilcoxon's test, and the reviews that moved
        most."""
        import duckdb

        from peerlake.audit.builds_diff import MartUnknown, compare_published
        from peerlake.warehouse import Lake
        from peerlake.warehouse.builds import BuildUnknown
        from peerlake.warehouse.marts_reader import MartsUnreadable

        if fmt not in ("table", "json"):
            typer.echo(f"error: --format must be table or json, not {fmt!r}", err=True)
            raise typer.Exit(2)
        if (build is None) == (judges is None):
            typer.echo("error: give one of --build PREV (two builds) or STUDY --judges A B (two judges)", err=True)
            raise typer.Exit(2)
        if judges is not None:
            _judges(study, judges, metric, top, fmt)
            return
        try:
            report = compare_published(Lake.default(), build, mart or None, limit)
        except (BuildUnknown, MartUnknown) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except MartsUnreadable as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        except duckdb.IOException as exc:  # a publish pruned the build's chunks meanwhile
            typer.echo(f"error: build {build}'s snapshot cannot be read ({str(exc).splitlines()[0]}): retry", err=True)
            raise typer.Exit(1) from None
        if fmt == "json":
            print(json.dumps(report, indent=1, default=str))
        else:
            print_report(report)
