"""Compound statements: the bodies of stored procedures, stored functions and triggers
(BEGIN ... END, DECLARE, SET, IF, CASE, loops, cursors, handlers), which sqlglot cannot
parse. `reader` reads a body into the nodes of `program`; each plain SQL statement inside
is parsed by the statement parser. The executor's `execute/program.py` runs them."""
