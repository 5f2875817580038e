"""A build, for the tests of kept builds and their diff: the candidate starts from the published file, SQL
runs on it, and it is published (warehouse.publish), as a pipeline build would."""

import duckdb

from peerlake.warehouse.publish import publish, reset_candidate


def publish_sql(lake, sql: str) -> None:
    reset_candidate(lake)
    lake.candidate_duckdb_path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(lake.candidate_duckdb_path)) as con:
        con.execute(sql)
    publish(lake)
