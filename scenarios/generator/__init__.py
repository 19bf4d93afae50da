"""A seeded random workload generator: `(seed, index)` always gives the same workload.

Workloads are small on purpose. Few rows, few key values and few tables make statements
of different sessions collide on keys and tables, which is where statement and row
logging part ways. The unsafe constructs (functions and variables whose value differs on
the slave, LIMIT without a deterministic order, non-transactional writes inside a
transaction) come at tunable rates, so that most statements stay safe and a divergence
points at the few that are not.

The package: `config` (the tunables), `tables` (the tables a workload draws and its
schema statements), `statements` (the DML statements by kind, and the unsafe constructs
in them) and `sessions` (each session's statements and transactions, the workload).
"""
