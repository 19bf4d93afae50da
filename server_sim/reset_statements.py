"""RESET statements as written: RESET MASTER, which empties the master's binary log, is
modelled; the server's other RESET statements are refused by name, and a word no server
accepts after RESET is a syntax error there.

sqlglot reads `RESET MASTER` as a column with an alias, so the form is read here."""

from __future__ import annotations

import re

from .errors import not_supported
from .statement import Statement, StatementKind
from .syntax import syntax_error

RESET_START = re.compile(r"^\s*RESET\b", re.IGNORECASE)
_RESET_MASTER = re.compile(r"^\s*RESET\s+MASTER\s*$", re.IGNORECASE)
_OPTION = re.compile(r"\s*(\w+)", re.IGNORECASE)
# What either server accepts after RESET, and why the simulator does not run it.
_REFUSED = {
    "MASTER": "RESET MASTER TO n and RESET MASTER with other options (the simulated master writes one binlog file)",
    "SLAVE": "RESET SLAVE (the harness sets its replica up itself)",
    "REPLICA": "RESET REPLICA (the harness sets its replica up itself)",
    "QUERY": "RESET QUERY CACHE (the simulator has no query cache)",
    "PERSIST": "RESET PERSIST (the simulator persists no variables)",
}


def parse_reset(text: str) -> Statement:
    """RESET MASTER as a statement; 1235 naming any other RESET the servers run, 1064 near
    a word they do not."""
    if _RESET_MASTER.match(text):
        return Statement(text, StatementKind.RESET_MASTER)
    start = RESET_START.match(text)
    assert start is not None
    option = _OPTION.match(text, start.end())
    if option is None or option.group(1).upper() not in _REFUSED:
        raise syntax_error(text, option.start(1) if option is not None else len(text))
    raise not_supported(_REFUSED[option.group(1).upper()])
