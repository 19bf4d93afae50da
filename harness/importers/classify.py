"""What a captured statement is to replication, by its leading words: a kept statement
becomes a step (the simulator refuses with 1235 what it does not model); a statement
that cannot change what replicates (a plain SELECT, SHOW, SET NAMES) is kept only when
asked; USE is never a step, since the importer records the database, nor in a log the
prepared-statement commands, whose executions the log carries expanded (a mysqltest file
keeps them: the simulator runs them)."""

from __future__ import annotations

import re
from enum import Enum

from server_sim.errors import SqlError
from server_sim.parser import parse_statement


class Kind(str, Enum):
    """The kinds an import counts, kept or dropped."""

    DATA = "data change"
    DDL = "DDL"
    TRANSACTION = "transaction control"
    SETTING = "session setting"
    LOCKING_READ = "locking or side-effect read"
    READ = "read-only"
    DATABASE = "database choice"
    PREPARED = "prepared-statement command"
    OTHER = "other"

    @property
    def replicates(self) -> bool:
        """Whether the statement can matter for replication, so it is kept by default."""
        return self not in (Kind.READ, Kind.DATABASE, Kind.PREPARED)


_WORD = re.compile(r"[A-Za-z_]+")
_LEADING = re.compile(r"^(?:\s|/\*(?![!M]).*?\*/|\(|--[^\n]*\n|#[^\n]*\n)*", re.DOTALL)
_FIRST: dict[str, Kind] = {
    **dict.fromkeys(("INSERT", "REPLACE", "UPDATE", "DELETE", "LOAD", "BINLOG"), Kind.DATA),
    **dict.fromkeys(("CREATE", "ALTER", "DROP", "TRUNCATE", "RENAME"), Kind.DDL),
    **dict.fromkeys(("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "XA"), Kind.TRANSACTION),
    **dict.fromkeys(("SHOW", "DESCRIBE", "DESC", "EXPLAIN", "HELP", "CHECKSUM"), Kind.READ),
    **dict.fromkeys(("PREPARE", "EXECUTE", "DEALLOCATE"), Kind.PREPARED),
    "USE": Kind.DATABASE,
}
# A SELECT that locks rows, sets a variable or calls a function with effects is kept.
_SIDE_EFFECTS = re.compile(
    r"\bFOR\s+UPDATE\b|\bFOR\s+SHARE\b|\bLOCK\s+IN\s+SHARE\s+MODE\b|\bINTO\b|:=|"
    r"\b(?:GET_LOCK|RELEASE_LOCK|RELEASE_ALL_LOCKS|NEXTVAL|SETVAL|LASTVAL|SLEEP|LAST_INSERT_ID\s*\(\s*[^)\s])|\bNEXT\s+VALUE\s+FOR\b",
    re.IGNORECASE,
)
# SET statements that change only how the client and server exchange text.
_CHARSET_SETTING = re.compile(r"^SET\s+(?:NAMES|CHARACTER\s+SET|CHARSET)\b", re.IGNORECASE)


def kind_of(sql: str) -> Kind:
    """The kind of one statement's text."""
    body = sql[_LEADING.match(sql).end() :]
    words = [word.upper() for word in _WORD.findall(body[:200])[:3]]
    if not words:
        return Kind.OTHER
    first = words[0]
    if first in ("START",):
        return Kind.TRANSACTION if words[1:2] == ["TRANSACTION"] else Kind.OTHER
    if first in ("CREATE", "DROP", "ALTER") and words[1:2] in (["DATABASE"], ["SCHEMA"]):
        return Kind.DATABASE
    if first == "SET":
        return Kind.READ if _CHARSET_SETTING.match(body) else Kind.SETTING
    if first in ("SELECT", "WITH", "VALUES", "TABLE", "DO"):
        return Kind.LOCKING_READ if first == "DO" or _SIDE_EFFECTS.search(body) else Kind.READ
    return _FIRST.get(first, Kind.OTHER)


# The server's own databases: the simulator models their tables (mysql.general_log ...).
SYSTEM_DATABASES = frozenset({"mysql", "information_schema", "performance_schema", "sys"})


def named_databases(sql: str) -> set[str]:
    """The user databases a statement names its tables with (`db1.t`), lower-case; none
    for a statement the simulator cannot parse (it is refused when run)."""
    try:
        statement = parse_statement(sql)
    except SqlError:
        return set()
    return {node.db.lower() for node in statement.table_nodes if node.db and node.db.lower() not in SYSTEM_DATABASES}
