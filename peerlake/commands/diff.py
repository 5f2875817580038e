"""`peerlake diff --build PREV`: what the published marts changed since a kept build, mart by mart and
key by key (audit.builds_diff over warehouse.builds' snapshots)."""

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


def print_report(report: dict) -> None:
    from peerlake.console import console, print_rows

    old, new = report["old"], report["new"]
    console.print(f"published marts ({'build ' + new['build_id'] if new['build_id'] else 'no snapshot kept'}) "
                  f"against build {old['build_id']} (published {old['published_at']}, chain head seq "
                  f"{old['chain_head_seq']})", highlight=False)
    differ = [m for m in report["marts"] if m["status"] != "compared" or m["added"] or m["removed"]
              or m["changed"] or m["not_compared"]]
    if differ:
        print_rows([{"mart": m["mart"], "rows": f"{m['rows_old']} → {m['rows_new']}",
                     "added": m["added"], "removed": m["removed"], "changed": m["changed"],
                     "moved beyond CI": m["moved"],
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


@command_group("diff", listed=65)
def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Results")
    def diff(build: str = typer.Option(..., "--build", help="the build to compare with: prev (the one before "
                                       "the published build), -N (N builds before it) or a build id"),
             mart: list[str] = typer.Option(None, "--mart", help="only this mart (repeatable)"),
             limit: int = typer.Option(10, "--limit", min=0, help="example keys shown per kind and mart"),
             fmt: str = typer.Option("table", "--format", "-f", help="table | json")) -> None:
        """What the published marts changed since an earlier build: per mart and key, rows added, removed and
        changed (beyond 1e-9 relative), estimates that moved outside their old interval, and the columns a
        shape change left uncompared. The last $PEERLAKE_KEEP_BUILDS builds (default 5) are kept."""
        import duckdb

        from peerlake.audit.builds_diff import MartUnknown, compare_published
        from peerlake.warehouse import Lake
        from peerlake.warehouse.builds import BuildUnknown
        from peerlake.warehouse.marts_reader import MartsUnreadable

        if fmt not in ("table", "json"):
            typer.echo(f"error: --format must be table or json, not {fmt!r}", err=True)
            raise typer.Exit(2)
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
