"""Prepared statements from SQL: PREPARE name FROM 'text' | @var, EXECUTE name [USING ...],
DEALLOCATE | DROP PREPARE name.

The commands themselves are read here (sqlglot has no tree for them); what EXECUTE runs,
and logs under STATEMENT, is the prepared text with each `?` replaced by its value written
as a literal, the way the server expands the query it writes to the binlog.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from .errors import not_supported
from .syntax import syntax_error, unquoted_name
from .temporal_types import time_literal_text

_MYSQL = sqlglot.Dialect.get_or_raise("mysql")
_NAME = r"(?:`(?:[^`]|``)+`|\w+)"
_PREPARE = re.compile(rf"^\s*PREPARE\s+(?P<name>{_NAME})\s+FROM\s+(?P<source>.+?)\s*$", re.IGNORECASE | re.DOTALL)
_EXECUTE = re.compile(rf"^\s*EXECUTE\s+(?P<name>{_NAME})(?:\s+USING\s+(?P<using>.+?))?\s*$", re.IGNORECASE | re.DOTALL)
_DEALLOCATE = re.compile(rf"^\s*(?:DEALLOCATE|DROP)\s+PREPARE\s+(?P<name>{_NAME})\s*$", re.IGNORECASE)
COMMAND_START = re.compile(r"^\s*(?:PREPARE|EXECUTE|(?:DEALLOCATE|DROP)\s+PREPARE)\b", re.IGNORECASE)


class PreparedAction(Enum):
    PREPARE = "PREPARE"
    EXECUTE = "EXECUTE"
    DEALLOCATE = "DEALLOCATE PREPARE"


@dataclass(frozen=True)
class PreparedCommand:
    """One PREPARE, EXECUTE or DEALLOCATE PREPARE as written."""

    action: PreparedAction
    name: str  # compared without case, as the server does
    source: exp.Expression | None = None  # PREPARE's text: a string literal or @variable
    arguments: tuple[exp.Expression, ...] = ()  # EXECUTE ... USING, in order

    @property
    def key(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class PreparedText:
    """A statement PREPARE checked: its text and how many parameter markers it has."""

    name: str
    text: str
    markers: int


def _expression(text: str, whole: str, offset: int) -> exp.Expression:
    """A SELECT-list expression read from `text` (1064 near it when it is none)."""
    try:
        select = sqlglot.parse_one(f"SELECT {text}", read="mysql")
    except (ParseError, TokenError):
        raise syntax_error(whole, offset) from None
    if not isinstance(select, exp.Select):
        raise syntax_error(whole, offset)
    return select


def parse_prepared_command(text: str) -> PreparedCommand | None:
    """The command `text` is, or None when it is no PREPARE / EXECUTE / DEALLOCATE PREPARE."""
    if not COMMAND_START.match(text):
        return None
    match = _DEALLOCATE.match(text)
    if match:
        return PreparedCommand(PreparedAction.DEALLOCATE, unquoted_name(match.group("name")))
    match = _PREPARE.match(text)
    if match:
        source = _expression(match.group("source"), text, match.start("source")).expressions
        if len(source) != 1 or not (isinstance(source[0], exp.Parameter) or (isinstance(source[0], exp.Literal) and source[0].is_string)):
            raise syntax_error(text, match.start("source"))
        return PreparedCommand(PreparedAction.PREPARE, unquoted_name(match.group("name")), source=source[0])
    match = _EXECUTE.match(text)
    if match:
        using = match.group("using")
        arguments = tuple(_expression(using, text, match.start("using")).expressions) if using else ()
        return PreparedCommand(PreparedAction.EXECUTE, unquoted_name(match.group("name")), arguments=arguments)
    raise syntax_error(text, len(text))


def placeholder_offsets(text: str) -> list[int]:
    """Where each `?` parameter marker of a prepared text is (not those in strings or comments)."""
    return [token.start for token in _MYSQL.tokenize(text) if token.token_type is TokenType.PLACEHOLDER]


# Parents a `?` may have: a value's place in an expression, never a name's.
_NAME_PARENTS = (exp.Table, exp.Schema, exp.Identifier, exp.TableAlias, exp.ColumnDef, exp.Column, exp.Alias)


def check_markers(text: str, tree: exp.Expression | None) -> int:
    """The number of parameter markers; 1064 near the first that stands for a name, where the
    server's grammar allows only a value."""
    offsets = placeholder_offsets(text)
    if tree is None:
        if offsets:
            raise syntax_error(text, offsets[0])
        return 0
    for index, node in enumerate(tree.find_all(exp.Placeholder)):
        if isinstance(node.parent, _NAME_PARENTS) and index < len(offsets):
            raise syntax_error(text, offsets[index])
    return len(offsets)


def expanded_text(text: str, values: list[object], no_backslash_escapes: bool) -> str:
    """The prepared text with each marker replaced by its value as a literal: what EXECUTE
    runs and writes to the binlog."""
    pieces = []
    end = 0
    for offset, value in zip(placeholder_offsets(text), values):
        pieces.append(text[end:offset])
        pieces.append(literal_text(value, no_backslash_escapes))
        end = offset + 1
    pieces.append(text[end:])
    return "".join(pieces)


_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\0": "\\0", "\n": "\\n", "\r": "\\r", "\x1a": "\\Z"}


def literal_text(value: object, no_backslash_escapes: bool = False) -> str:
    """A value written as the server writes a parameter into the logged query
    (Item_param::query_val_str): numbers as they are, strings and temporal values quoted."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, float):
        return double_text(value)
    if isinstance(value, dt.datetime):
        return f"'{value.replace(tzinfo=None).isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"'{value.isoformat()}'"
    if isinstance(value, dt.time):
        return f"'{value.replace(tzinfo=None).isoformat()}'"
    if isinstance(value, dt.timedelta):  # a TIME column's value
        return f"'{time_literal_text(value)}'"
    if isinstance(value, bytes):
        if not value.isascii():
            raise not_supported("a binary string parameter with non-ASCII bytes in EXECUTE ... USING")
        value = value.decode("ascii")
    text = str(value)
    escaped = text.replace("'", "''") if no_backslash_escapes else "".join(_ESCAPES.get(char, char) for char in text)
    return f"'{escaped}'"


def double_text(value: float) -> str:
    """A DOUBLE as the server prints it (my_gcvt): the shortest digits that read back as the
    same value, in exponent form (`1e20`, `1e-16`) when the decimal point would sit more
    than 15 places from the first digit, else written out (`0.00000025`)."""
    if value == 0:
        return "0"
    digits, exponent = _shortest_digits(abs(value))
    sign = "-" if value < 0 else ""
    if exponent <= -16 or exponent >= 15:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{exponent}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole = digits[: exponent + 1].ljust(exponent + 1, "0")
    fraction = digits[exponent + 1 :]
    return f"{sign}{whole}{'.' + fraction if fraction else ''}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """The significant digits of repr(value) and the decimal exponent of the first."""
    _, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    return "".join(map(str, digits)), exponent + len(digits) - 1
