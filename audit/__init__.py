"""`peerlake audit`: trace one mart row to the exact events, blobs and dbt code behind it, bundle
that evidence, and recompute the row from the bundle's events alone.

- keys.py       which row a KEY names (readable primary keys, or declared key columns)
- lineage.py    the models and event sources of a mart, from dbt's manifest
- selection.py  the events behind a row (the crux: the recompute is what proves the choice right)
- trace.py      the row, each step's input rows, the calls whose answers it used
- tree.py       the rich tree printed by the CLI
- bundle.py     the evidence zip; check.py re-verifies its hashes and recomputes the row with the
                installed code (never the bundle's)
- code.py       the statistics a chain imports and the code version (hashes) a bundle records
- untrusted.py  a bundle's member names, events and row.json checked as data before use
"""
