"""Which error a statement the parser cannot take gets: 1064 with the server's "near '...'
at line N" text when the server could not parse it either (an unknown statement, a
misspelt object word), 1235 naming the statement when the server would run it and the
simulator does not model it (LOAD DATA, GRANT, CALL, ...).

The servers' parsers are not sqlglot's: where sqlglot fails inside a statement whose kind
the simulator models, the error is 1064 near the token sqlglot stopped at.
"""

from __future__ import annotations

import re

from sqlglot.errors import ParseError

from .errors import ErrorCode, SqlError, not_supported

# Words a statement can start with, by what the simulator does with them.
MODELLED_STARTS = frozenset(
    {
        "SELECT", "INSERT", "REPLACE", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "TRUNCATE",
        "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "SET", "BINLOG", "WITH",
        "SHOW", "ANALYZE", "(",
    }
)
SERVER_STARTS = frozenset(
    {
        "BACKUP", "CACHE", "CALL", "CHANGE", "CHECK", "CHECKSUM", "CLONE", "DEALLOCATE", "DESC",
        "DESCRIBE", "DO", "EXECUTE", "EXPLAIN", "FLUSH", "GET", "GRANT", "HANDLER", "HELP",
        "IMPORT", "INSTALL", "KILL", "LOAD", "LOCK", "OPTIMIZE", "PREPARE", "PURGE", "RENAME",
        "REPAIR", "RESET", "RESIGNAL", "RESTART", "REVOKE", "SHUTDOWN", "SIGNAL", "STOP", "TABLE",
        "UNINSTALL", "UNLOCK", "USE", "VALUES", "XA",
    }
)
# What may follow CREATE, DROP or ALTER in either server's grammar.
OBJECT_WORDS = frozenset(
    {
        "TABLE", "TEMPORARY", "INDEX", "UNIQUE", "FULLTEXT", "SPATIAL", "VIEW", "TRIGGER",
        "FUNCTION", "PROCEDURE", "EVENT", "DATABASE", "SCHEMA", "USER", "ROLE", "SERVER",
        "TABLESPACE", "LOGFILE", "UNDO", "OR", "DEFINER", "ALGORITHM", "SQL", "AGGREGATE",
        "SEQUENCE", "PACKAGE", "RESOURCE", "ONLINE", "OFFLINE", "IGNORE", "IF", "INSTANCE",
    }
)


# Clauses and types inside statements the simulator models, which the servers parse and
# sqlglot's MySQL dialect does not: refused by name rather than reported as bad syntax,
# each looked for only in the statements it belongs to (a column may be named `point`).
UNPARSED_CONSTRUCTS: tuple[tuple[frozenset[str], re.Pattern[str], str], ...] = (
    (frozenset({"SELECT", "WITH", "("}), re.compile(r"\bINTO\s+(OUTFILE|DUMPFILE)\b", re.IGNORECASE), "SELECT ... INTO OUTFILE / DUMPFILE (the simulator writes no files)"),
    (
        frozenset({"CREATE", "ALTER"}),
        re.compile(r"\s(GEOMETRY|POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMCOLLECTION|GEOMETRYCOLLECTION)\b\s*(NOT\b|NULL\b|SRID\b|DEFAULT\b|,|\))", re.IGNORECASE),
        "spatial column types",
    ),
    (frozenset({"CREATE", "ALTER"}), re.compile(r"\bPARTITION\s+BY\b", re.IGNORECASE), "partitioned tables"),
)


def unquoted_name(name: str) -> str:
    """A name as the server reads it: a backquoted one without its quotes, a doubled
    backquote inside it as one."""
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


def syntax_error(text: str, position: int) -> SqlError:
    """ER_PARSE_ERROR as the server words it: the text from where parsing failed (80
    characters at most) and that place's line."""
    near = text[position:][:80]
    line = text.count("\n", 0, position) + 1
    error = SqlError(
        ErrorCode.ER_PARSE_ERROR,
        message="You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        f"server version for the right syntax to use near '{near}' at line {line}",
    )
    error.position = position
    return error


def _words(text: str) -> list[tuple[str, int]]:
    """The first two words of `text` with their positions."""
    words: list[tuple[str, int]] = []
    index = 0
    while len(words) < 2 and index < len(text):
        while index < len(text) and text[index].isspace():
            index += 1
        start = index
        if index < len(text) and text[index] == "(":
            index += 1
        else:
            while index < len(text) and not text[index].isspace() and text[index] not in "(;":
                index += 1
        if index > start:
            words.append((text[start:index].upper(), start))
    return words


def unrecognised(text: str) -> SqlError | None:
    """The error for a statement the simulator does not parse, known by its first words:
    1064 for words no server statement starts with, 1235 for the server's statements the
    simulator does not model; None for the statements it models."""
    words = _words(text)
    if not words:
        return syntax_error(text, 0)
    first, start = words[0]
    if first in SERVER_STARTS:
        return not_supported(f"{first} statements (the simulator models DML, DDL on tables, SET, SHOW, ANALYZE TABLE and transaction control)")
    if first not in MODELLED_STARTS:
        return syntax_error(text, start)
    if first in ("CREATE", "DROP", "ALTER") and len(words) > 1 and words[1][0] not in OBJECT_WORDS:
        return syntax_error(text, words[1][1])
    for starts, pattern, construct in UNPARSED_CONSTRUCTS:
        if first in starts and pattern.search(text):
            return not_supported(construct)
    return None


def parse_error_position(source: str, error: ParseError) -> int:
    """Where in `source` sqlglot stopped: the start of the token it could not take."""
    details = error.errors[0] if error.errors else {}
    line, column = details.get("line"), details.get("col")
    if not isinstance(line, int) or not isinstance(column, int):
        return len(source)
    lines = source.split("\n")
    offset = sum(len(text) + 1 for text in lines[: line - 1]) + column
    highlight = str(details.get("highlight") or "")
    return max(0, min(len(source), offset - len(highlight)))
