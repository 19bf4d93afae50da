"""A schema file given with `--schema` / `--slave-schema`: plain `;`-separated DDL, or a
`mysqldump --no-data` / `mariadb-dump --no-data` of the server.

A dump wraps statements in executable comments (`/*!40101 SET NAMES utf8mb4 */`,
`/*!50003 CREATE*/ /*!50017 DEFINER=...*/ /*!50003 TRIGGER ... */`), which are unwrapped
as the modelled server executes them, and surrounds the tables with statements that only
serve the dump's own loading session: saving and restoring variables through
`@OLD_...` and `@saved_cs_client`, the client character set, `LOCK TABLES`, `USE`. Those
are left out (the scenario's schema runs in a session of its own, in one database); every
other statement is kept as written, and the simulator refuses (1235) what it does not
model."""

from __future__ import annotations

import re
from pathlib import Path

from harness.importers.classify import Kind, kind_of
from harness.importers.model import ImportFailure
from harness.importers.text import open_quote, read_text, split_sql, unwrap_versioned_comments
from server_sim.errors import SqlError
from server_sim.parser import parse_statement

_DUMP_SESSION = re.compile(
    r"^\s*(?:SET\s+(?:@OLD_\w+|@saved_\w+|\w+\s*=\s*@OLD_\w+|\w+\s*=\s*@saved_\w+|(?:SESSION\s+)?character_set_client\b|NAMES\b|CHARACTER\s+SET\b)"
    r"|LOCK\s+TABLES?\b|UNLOCK\s+TABLES?\b)",
    re.IGNORECASE,
)


def read_schema_file(path: Path, flavor: str) -> list[str]:
    """The statements of the schema file that build the schema, in order."""
    text = unwrap_versioned_comments(read_text(path), flavor)
    statements: list[str] = []
    refused: list[str] = []
    for sql, line in split_sql(text):
        if open_quote(sql) is not None:
            raise ImportFailure(f"{path}:{line}: statement cut inside {open_quote(sql)!r}: the file is truncated")
        if kind_of(sql) is Kind.DATABASE or _DUMP_SESSION.match(sql):
            continue
        try:
            parse_statement(sql)
        except SqlError as error:
            refused.append(f"{path}:{line}: {error}")
        statements.append(" ".join(sql.split()) if "\n" in sql and "'" not in sql else sql)
    if refused:
        raise ImportFailure("the schema holds statements the simulator does not model or cannot parse:\n  " + "\n  ".join(refused))
    if not statements:
        raise ImportFailure(f"{path}: no schema statements in it")
    return statements
