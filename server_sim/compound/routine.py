"""Stored procedures and stored functions as CREATE PROCEDURE / CREATE FUNCTION define
them: the header (name, parameters, RETURNS, characteristics) read here, the body by the
compound-statement reader. The binlog gets the definition as the server rebuilds it
(show_create_sp): `CREATE DEFINER=... PROCEDURE `name`(parameters as written)`, the
characteristics that matter, one per line, then the body as written."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from ..errors import ErrorCode, SqlError, not_supported
from ..enum_set import type_sql
from ..types import ColumnType, TypeFamily
from .program import Node, has_return
from .reader import read_body
from .tokens import NAMES, TokenCursor, variable_type


class RoutineKind(Enum):
    PROCEDURE = "PROCEDURE"
    FUNCTION = "FUNCTION"


class ParameterMode(Enum):
    IN = "IN"
    OUT = "OUT"
    INOUT = "INOUT"


class DataAccess(Enum):
    """What a routine says of its SQL (the server's SP_*_SQL_DATA); CONTAINS SQL is the default."""

    CONTAINS_SQL = "CONTAINS SQL"
    NO_SQL = "NO SQL"
    READS_SQL_DATA = "READS SQL DATA"
    MODIFIES_SQL_DATA = "MODIFIES SQL DATA"


@dataclass(frozen=True)
class Parameter:
    name: str  # as written
    mode: ParameterMode
    type: ColumnType


@dataclass(frozen=True)
class Routine:
    """A parsed CREATE PROCEDURE / CREATE FUNCTION."""

    kind: RoutineKind
    name: str
    parameters: tuple[Parameter, ...]
    parameters_text: str  # between the parentheses, as written
    body: tuple[Node, ...]
    body_text: str
    sql: str
    returns: ColumnType | None = None
    deterministic: bool = False
    access: DataAccess = DataAccess.CONTAINS_SQL
    invoker: bool = False  # SQL SECURITY INVOKER
    comment: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return self.kind.value, self.name.lower()

    def line(self, body_line: int) -> int:
        """The line a line of the body is in the definition as the server reads it back
        (show_create_sp: the header, a line per characteristic, then the body), not in the
        CREATE statement as written: MariaDB's Note 4094 says it."""
        header = logged_create_routine(self, "@", "", "").removesuffix(self.body_text)
        return header.count("\n") + body_line

    @property
    def safe_for_binlog(self) -> bool:
        """A function the server creates without log_bin_trust_function_creators (else 1418)."""
        return self.deterministic or self.access in (DataAccess.NO_SQL, DataAccess.READS_SQL_DATA)


CREATE_ROUTINE_START = re.compile(
    r"^\s*CREATE\s+(?:DEFINER\s*=\s*\S+\s+)?(?:PROCEDURE\b|FUNCTION\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:`(?:[^`]|``)+`|\w+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|\w+))?\s*\()",
    re.IGNORECASE,
)


def parse_create_routine(text: str) -> Routine:
    """Read CREATE PROCEDURE / CREATE FUNCTION (a stored one: with a parameter list)."""
    cursor = TokenCursor(text)
    cursor.expect("CREATE")
    if cursor.word() in ("OR", "AGGREGATE"):
        raise not_supported(f"CREATE {cursor.word()} ... for stored routines")
    if cursor.accept("DEFINER"):
        _skip_definer(cursor)
    kind = RoutineKind(cursor.word()) if cursor.word() in ("PROCEDURE", "FUNCTION") else None
    if kind is None:
        raise cursor.error()
    cursor.pos += 1
    if cursor.word() == "IF":
        raise not_supported(f"CREATE {kind.value} IF NOT EXISTS")
    name = _routine_name(cursor)
    parameters, parameters_text = _parameters(cursor, kind)
    returns = None
    if kind is RoutineKind.FUNCTION:
        cursor.expect("RETURNS")
        start = cursor.tokens[cursor.pos].start if cursor.token() else len(text)
        while cursor.token() is not None and cursor.word() not in _CHARACTERISTIC_STARTS and not _body_starts(cursor):
            cursor.pos += 1
        end = cursor.tokens[cursor.pos].start if cursor.token() else len(text)
        returns = variable_type(text[start:end], returns=True)
    characteristics = _characteristics(cursor)
    if cursor.token() is None:
        raise cursor.error()
    body_text = text[cursor.tokens[cursor.pos].start :].rstrip().rstrip(";").rstrip()
    parameter_names = tuple(p.name for p in parameters)
    body = read_body(body_text, parameter_names, in_function=kind is RoutineKind.FUNCTION)
    routine = Routine(kind, name, parameters, parameters_text, body, body_text, text, returns, **characteristics)
    if kind is RoutineKind.FUNCTION and not has_return(body):
        raise SqlError(ErrorCode.ER_SP_NORETURN, f"test.{name}")
    return routine


def _skip_definer(cursor: TokenCursor) -> None:
    """DEFINER = user[@host] | CURRENT_USER[()]: the server logs its own definer clause."""
    cursor.expect("=")
    cursor.pos += 1
    if cursor.accept("("):
        cursor.expect(")")
    token = cursor.token()
    if token is not None and token.text.startswith("@"):
        cursor.pos += 1 if len(token.text) > 1 else 2
    elif cursor.word() == "@":
        cursor.pos += 2


def _routine_name(cursor: TokenCursor) -> str:
    name = cursor.name()
    if cursor.accept("."):
        if name.lower() != "test":
            raise not_supported(f"a stored routine in database {name!r} (the simulator models one database)")
        name = cursor.name()
    return name


def _parameters(cursor: TokenCursor, kind: RoutineKind) -> tuple[tuple[Parameter, ...], str]:
    cursor.expect("(")
    open_at = cursor.tokens[cursor.pos - 1].end + 1
    parameters: list[Parameter] = []
    while cursor.word() != ")":
        mode = ParameterMode.IN
        if kind is RoutineKind.PROCEDURE and cursor.word() in ("IN", "OUT", "INOUT") and cursor.word(2) not in (",", ")", ""):
            mode = ParameterMode(cursor.word())
            cursor.pos += 1
        name = cursor.name()
        if any(p.name.lower() == name.lower() for p in parameters):
            raise SqlError(ErrorCode.ER_SP_DUP_VAR, name)
        start = cursor.tokens[cursor.pos].start if cursor.token() else len(cursor.text)
        depth = 0
        while cursor.token() is not None and (depth or cursor.word() not in (",", ")")):
            depth += {"(": 1, ")": -1}.get(cursor.word(), 0)
            cursor.pos += 1
        end = cursor.tokens[cursor.pos - 1].end + 1
        parameters.append(Parameter(name, mode, variable_type(cursor.text[start:end])))
        if not cursor.accept(","):
            break
    cursor.expect(")")
    return tuple(parameters), cursor.text[open_at : cursor.tokens[cursor.pos - 1].start]


_CHARACTERISTIC_STARTS = {"COMMENT", "LANGUAGE", "NOT", "DETERMINISTIC", "CONTAINS", "NO", "READS", "MODIFIES", "SQL"}


def _body_starts(cursor: TokenCursor) -> bool:
    token = cursor.token()
    return token is not None and (cursor.word() in ("BEGIN", "RETURN") or (token.token_type in NAMES and cursor.word(1) == ":"))


def _characteristics(cursor: TokenCursor) -> dict[str, object]:
    found: dict[str, object] = {}
    while cursor.word() in _CHARACTERISTIC_STARTS and not (cursor.word() == "SQL" and cursor.word(1) != "SECURITY"):
        word = cursor.word()
        cursor.pos += 1
        if word == "COMMENT":
            token = cursor.token()
            if token is None:
                raise cursor.error()
            found["comment"] = token.text
            cursor.pos += 1
        elif word == "LANGUAGE":
            cursor.expect("SQL")
        elif word in ("NOT", "DETERMINISTIC"):
            if word == "NOT":
                cursor.expect("DETERMINISTIC")
            found["deterministic"] = word == "DETERMINISTIC"
        elif word == "SQL":
            cursor.expect("SECURITY")
            found["invoker"] = cursor.word() == "INVOKER"
            if cursor.word() not in ("INVOKER", "DEFINER"):
                raise cursor.error()
            cursor.pos += 1
        else:
            found["access"] = _access(cursor, word)
    return found


def _access(cursor: TokenCursor, word: str) -> DataAccess:
    following = {"CONTAINS": ("SQL",), "NO": ("SQL",), "READS": ("SQL", "DATA"), "MODIFIES": ("SQL", "DATA")}[word]
    cursor.expect(*following)
    return DataAccess(" ".join((word, *following)))


def logged_create_routine(routine: Routine, user: str, charset: str, collation: str) -> str:
    """The CREATE statement as the server writes it to the binlog (show_create_sp)."""
    name, _, host = user.partition("@")
    quoted = "`" + routine.name.replace("`", "``") + "`"
    text = f"CREATE DEFINER=`{name}`@`{host}` {routine.kind.value} {quoted}({routine.parameters_text})"
    if routine.returns is not None:
        text += " RETURNS " + shown_type(routine.returns, charset, collation)
    text += "\n"
    if routine.access is not DataAccess.CONTAINS_SQL:
        text += f"    {routine.access.value}\n"
    if routine.deterministic:
        text += "    DETERMINISTIC\n"
    if routine.invoker:
        text += "    SQL SECURITY INVOKER\n"
    if routine.comment is not None:
        text += "    COMMENT '" + routine.comment.replace("\\", "\\\\").replace("'", "\\'") + "'\n"
    return text + routine.body_text


_DISPLAY_WIDTHS = {"TINYINT": (4, 3), "SMALLINT": (6, 5), "MEDIUMINT": (9, 8), "INT": (11, 10), "BIGINT": (20, 20)}


def shown_type(column_type: ColumnType, charset: str, collation: str) -> str:
    """A type as SHOW CREATE FUNCTION prints RETURNS: `int(11)`, `varchar(40) CHARSET latin1 COLLATE latin1_swedish_ci`."""
    name = column_type.name.lower()
    if column_type.is_integer:
        signed, unsigned = _DISPLAY_WIDTHS[column_type.name]
        return f"{name}({unsigned if column_type.unsigned else signed})" + (" unsigned" if column_type.unsigned else "")
    if column_type.family is TypeFamily.DECIMAL:
        return f"decimal({column_type.length},{column_type.scale})" + (" unsigned" if column_type.unsigned else "")
    if column_type.is_enum_or_set:
        return f"{type_sql(name, column_type.members)} CHARSET {charset} COLLATE {collation}"
    if column_type.family is TypeFamily.STRING:
        length = f"({column_type.length})" if column_type.length is not None and not column_type.is_blob else ""
        return f"{name}{length} CHARSET {charset} COLLATE {collation}"
    if column_type.family is TypeFamily.BINARY and column_type.length is not None and not column_type.is_blob:
        return f"{name}({column_type.length})"
    return name
