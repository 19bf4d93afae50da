"""LOCK TABLES and UNLOCK TABLES as written: which tables, and READ or WRITE for each.

sqlglot has no tree for them, so they are read by their form. What the server accepts and
the simulator does not model is refused by name: a lock under an alias (a statement must
then name the table by that alias), READ LOCAL (MyISAM's concurrent inserts) and
LOW_PRIORITY WRITE (the lock queue's priorities).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from .errors import ErrorCode, SqlError, not_supported
from .syntax import syntax_error, unquoted_name

LOCK_TABLES_START = re.compile(r"^\s*LOCK\s+TABLES?\b", re.IGNORECASE)
UNLOCK_TABLES = re.compile(r"^\s*UNLOCK\s+TABLES?\s*$", re.IGNORECASE)

_NAME = r"(?:`(?:[^`]|``)*`|[\w$]+)"
_ITEM = re.compile(
    rf"\s*(?:(?P<db>{_NAME})\s*\.\s*)?(?P<name>{_NAME})"
    rf"(?:\s+(?:AS\s+)?(?P<alias>{_NAME}))??"
    r"\s+(?P<mode>READ(?:\s+LOCAL)?|(?:LOW_PRIORITY\s+)?WRITE)\s*",
    re.IGNORECASE,
)


class TableLockMode(Enum):
    """thr_lock_type as LOCK TABLES asks for it: READ lets others read, WRITE lets no one in."""

    READ = "READ"
    WRITE = "WRITE"


@dataclass(frozen=True)
class TableLock:
    """One item of LOCK TABLES: a table (its database when written) and the lock asked for."""

    db: str | None
    name: str
    mode: TableLockMode


def parse_lock_tables(text: str) -> tuple[TableLock, ...]:
    """The items of `LOCK TABLES t READ, db.u WRITE, ...`; 1064 for a malformed list,
    1235 for the forms the simulator does not model, 1066 for a table named twice."""
    start = LOCK_TABLES_START.match(text)
    assert start is not None
    position = start.end()
    items: list[TableLock] = []
    while True:
        match = _ITEM.match(text, position)
        if match is None:
            raise syntax_error(text, _next_word(text, position))
        mode = " ".join(match["mode"].upper().split())
        if match["alias"] is not None:
            raise not_supported("LOCK TABLES with an alias (statements must then name the table by it)")
        if mode != "READ" and mode != "WRITE":
            raise not_supported(f"LOCK TABLES ... {mode} (MyISAM's concurrent inserts and lock priorities)")
        db = unquoted_name(match["db"]) if match["db"] else None
        name = unquoted_name(match["name"])
        if any(item.name.lower() == name.lower() and item.db == db for item in items):
            raise SqlError(ErrorCode.ER_NONUNIQ_TABLE, name)
        items.append(TableLock(db, name, TableLockMode(mode)))
        position = match.end()
        if position == len(text):
            return tuple(items)
        if text[position] != ",":
            raise syntax_error(text, position)
        position += 1


def _next_word(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position
