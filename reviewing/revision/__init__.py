"""The revision crossover (seed 003): manuscripts revised by one model against another's review, and
the roles, seeds and spec of that experiment."""
