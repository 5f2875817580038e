"""The dbt layer's pure functions: statistics, distribution estimation and the HTML report over the marts.

Called by the thin dbt Python models and the CLI; imports only the floor (warehouse settings), never orchestration."""
