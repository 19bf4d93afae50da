"""A view's definition: CREATE [OR REPLACE] / ALTER VIEW read, and the text the server logs.

sqlglot reads neither ALGORITHM, DEFINER nor SQL SECURITY before VIEW, so the header is
read here and the query after AS is parsed as a SELECT. The server logs the statement
rebuilt with every option spelt out (`CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost`
SQL SECURITY DEFINER VIEW `v` AS ...`), the query as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from .errors import ErrorCode, SqlError, not_supported
from .syntax import syntax_error, unquoted_name

_NAME = r"(?:`(?:[^`]|``)+`|\w+)"
_USER_PART = r"(?:`[^`]*`|'[^']*'|\"[^\"]*\"|[\w.%-]+)"
_VIEW = re.compile(
    rf"^\s*(?P<mode>CREATE(?:\s+OR\s+REPLACE)?|ALTER)\s+"
    r"(?:ALGORITHM\s*=\s*(?P<algorithm>UNDEFINED|MERGE|TEMPTABLE)\s+)?"
    rf"(?:DEFINER\s*=\s*(?P<definer>CURRENT_USER(?:\s*\(\s*\))?|{_USER_PART}(?:\s*@\s*{_USER_PART})?)\s+)?"
    r"(?:SQL\s+SECURITY\s+(?P<security>DEFINER|INVOKER)\s+)?"
    rf"VIEW\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?(?:(?P<db>{_NAME})\s*\.\s*)?(?P<name>{_NAME})\s*(?:\((?P<columns>[^()]*)\)\s*)?AS\s+(?P<source>.+?)\s*$",
    re.IGNORECASE | re.DOTALL,
)
VIEW_START = re.compile(
    r"^\s*(?:CREATE(?:\s+OR\s+REPLACE)?|ALTER)\s+(?:ALGORITHM\s*=\s*\w+\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:SQL\s+SECURITY\s+\w+\s+)?VIEW\b",
    re.IGNORECASE,
)
_CHECK_OPTION = re.compile(r"\s+WITH\s+(?:(?P<level>CASCADED|LOCAL)\s+)?CHECK\s+OPTION\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ViewDefinition:
    """One view: its name, options, column names and query."""

    name: str
    mode: str  # CREATE | CREATE OR REPLACE | ALTER, as the server writes it
    source: str  # the text after AS, check option included: what the server logs
    query: exp.Expression  # the SELECT (or UNION)
    sql: str  # the statement as written
    columns: tuple[str, ...] | None = None
    algorithm: str | None = None  # UNDEFINED, MERGE or TEMPTABLE
    definer: str | None = None  # user@host; None: the session's user (CURRENT_USER)
    security: str = "DEFINER"
    check_option: str | None = None  # CASCADED or LOCAL

    @property
    def replaces(self) -> bool:
        return self.mode != "CREATE"

    @property
    def updatable_algorithm(self) -> bool:
        """TEMPTABLE views are materialized: never updatable."""
        return self.algorithm != "TEMPTABLE"


def _definer(text: str | None) -> str | None:
    """`user@host` of a DEFINER clause; None for CURRENT_USER."""
    if text is None or text.upper().startswith("CURRENT_USER"):
        return None
    user, _, host = text.partition("@")
    return f"{user.strip().strip(chr(96) + chr(39) + chr(34))}@{(host.strip() or '%').strip(chr(96) + chr(39) + chr(34))}"


def parse_view(text: str) -> ViewDefinition:
    """Read CREATE [OR REPLACE] / ALTER VIEW; 1064 on a malformed one."""
    match = _VIEW.match(text)
    if match is None:
        raise syntax_error(text, len(text))
    if match.group("exists"):
        raise not_supported("CREATE VIEW IF NOT EXISTS")
    if match.group("db") and unquoted_name(match.group("db")) != "test":
        raise not_supported(f"views of database '{unquoted_name(match.group('db'))}' (the simulator models one database, 'test')")
    source = match.group("source")
    check = _CHECK_OPTION.search(source)
    query_text = source[: check.start()] if check else source
    try:
        query = sqlglot.parse_one(query_text, read="mysql")
    except (ParseError, TokenError):
        raise syntax_error(text, match.start("source")) from None
    while isinstance(query, exp.Subquery) and not query.alias:
        query = query.this  # AS (SELECT ...)
    if not isinstance(query, (exp.Select, exp.Union)):
        raise syntax_error(text, match.start("source"))
    columns = tuple(unquoted_name(part.strip()) for part in match.group("columns").split(",")) if match.group("columns") is not None else None
    return ViewDefinition(
        name=unquoted_name(match.group("name")),
        mode=" ".join(match.group("mode").upper().split()),
        source=source,
        query=query,
        sql=text,
        columns=columns,
        algorithm=match.group("algorithm").upper() if match.group("algorithm") else None,
        definer=_definer(match.group("definer")),
        security=(match.group("security") or "DEFINER").upper(),
        check_option=((check.group("level") or "CASCADED").upper()) if check else None,
    )


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def logged_view(definition: ViewDefinition, user: str) -> str:
    """The statement as the server writes it to the binlog (mysql_create_view)."""
    definer = definition.definer or user
    name, _, host = definer.partition("@")
    columns = f"({', '.join(map(_quoted, definition.columns))})" if definition.columns is not None else ""
    return (
        f"{definition.mode} ALGORITHM={definition.algorithm or 'UNDEFINED'} DEFINER={_quoted(name)}@{_quoted(host)} "
        f"SQL SECURITY {definition.security} VIEW {_quoted(definition.name)}{columns} AS {definition.source}"
    )


def view_columns(definition: ViewDefinition) -> list[str]:
    """The view's column names: its list, or the names of its query's select list."""
    if definition.columns is not None:
        return list(definition.columns)
    first = definition.query
    while isinstance(first, exp.Union):
        first = first.this
    assert isinstance(first, exp.Select)
    return [expression.alias_or_name or expression.sql(dialect="mysql") for expression in first.expressions]


def check_view_query(definition: ViewDefinition) -> None:
    """What the server refuses in a view's definition before it looks at any table:
    variables (1351), a column list of another length (1353), a name twice (1060)."""
    query = definition.query
    if any(True for _ in query.find_all(exp.Parameter, exp.SessionParameter, exp.Placeholder)):
        raise SqlError(ErrorCode.ER_VIEW_SELECT_VARIABLE)
    first = query
    while isinstance(first, exp.Union):
        first = first.this
    if any(isinstance(expression, exp.Star) or (isinstance(expression, exp.Column) and isinstance(expression.this, exp.Star)) for expression in first.expressions):
        return  # the column list is checked once `*` is expanded, against the tables' columns
    if definition.columns is not None and len(definition.columns) != len(first.expressions):
        raise SqlError(ErrorCode.ER_VIEW_WRONG_LIST)
    seen: set[str] = set()
    for name in view_columns(definition):
        if name.lower() in seen:
            raise SqlError(ErrorCode.ER_DUP_FIELDNAME, name)
        seen.add(name.lower())
