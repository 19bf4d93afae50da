"""A body's statements and expressions with the values of the local variables they read:
the tree the server runs (each variable a literal of its value) and the text it logs,
where each variable is `NAME_CONST('name',value)` (Item_splocal::append_for_log: the
value as the server prints it, a string with its character set and collation; in LIMIT
the plain number). The replacement starts with one space of its own: MariaDB drops the
blanks before the variable, MySQL keeps them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from sqlglot import exp

from ..errors import ErrorCode, SqlError, not_supported
from ..flavor import Flavor
from ..functions.context import literal
from ..statement import Statement
from ..types import ColumnType
from .program import SqlStatement
from .references import variable_columns


@dataclass
class Variable:
    """A parameter or local variable: its name as declared, its type (None: untyped) and value."""

    name: str
    type: ColumnType | None
    value: object = None

    def assign(self, value: object) -> None:
        """The value stored as the variable's type stores it (the server's error when it cannot)."""
        self.value = self.type.coerce(value, self.name) if self.type is not None and value is not None else value


Lookup = Callable[[str], "Variable | None"]


@dataclass(frozen=True)
class NameConstStyle:
    """How a server writes NAME_CONST: a string's character set and collation (the
    database's), and whether the blanks before the variable stay."""

    charset: str
    collation: str
    keeps_blanks: bool = False


def name_const_style(flavor: Flavor, variables: dict[str, str]) -> NameConstStyle:
    """The style of `flavor`, with the session's database character set and collation."""
    return NameConstStyle(variables["character_set_database"], variables["collation_database"], flavor.name_const_keeps_blanks)


def bound_expression(tree: exp.Expression, lookup: Lookup) -> exp.Expression:
    """An expression with each variable it reads replaced by its value; an unqualified
    name that is no variable is 1054 (a body's expression reads no table)."""

    def substitute(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or node.table:
            return node
        variable = lookup(node.name.lower())
        if variable is None:
            raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, node.name, "field list")
        return value_node(variable.value)

    return tree.copy().transform(substitute)


def value_node(value: object) -> exp.Expression:
    """A value as a MySQL expression (bytes as UNHEX('..'), which the function library reads)."""
    return exp.Unhex(this=exp.Literal.string(value.hex())) if isinstance(value, bytes) else literal(value)


def bound_statement(sql: SqlStatement, lookup: Lookup, style: NameConstStyle) -> Statement:
    """The plain statement as it runs (variables as literals) and as it is logged (NAME_CONST)."""
    statement = sql.statement
    if not sql.references or statement.ast is None:
        return statement
    names = {reference.name for reference in sql.references}
    tree = statement.ast.copy()
    for node in variable_columns(tree, names):
        variable = lookup(node.name.lower())
        assert variable is not None  # the reader checked the name was declared
        node.replace(value_node(variable.value))
    return dataclasses.replace(statement, sql=logged_text(sql, lookup, style), ast=tree)


def logged_text(sql: SqlStatement, lookup: Lookup, style: NameConstStyle) -> str:
    """The statement's text with each variable it reads as the server logs it."""
    parts: list[str] = []
    position = 0
    for reference in sql.references:
        variable = lookup(reference.name)
        assert variable is not None
        before = sql.text[position : reference.start]
        if reference.in_limit:
            parts.append(before + str(variable.value))
        else:
            value = logged_value(variable.value, style.charset, style.collation)
            parts.append((before if style.keeps_blanks else before.rstrip()) + f" NAME_CONST('{variable.name}',{value})")
        position = reference.end
    parts.append(sql.text[position:])
    return "".join(parts)


def logged_value(value: object, charset: str, collation: str) -> str:
    """A variable's value as NAME_CONST carries it (Type_handler::print_item_value): a
    temporal value as a typed literal, a string with its character set and collation."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, float):
        text = repr(value).replace("e+", "e").replace("e-0", "e-")
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, str):
        return f"_{charset}'{_escaped(value)}' COLLATE '{collation}'"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE'{value.isoformat()}'"
    if isinstance(value, bytes):
        return f"_binary'{_escaped(value.decode('latin1'))}' COLLATE 'binary'"
    raise not_supported(f"a {type(value).__name__} local variable in a logged statement")


_ESCAPES = {"\\": "\\\\", "'": "\\'", "\0": "\\0", "\n": "\\n", "\r": "\\r", "\x1a": "\\Z"}


def _escaped(text: str) -> str:
    """The string as the server quotes it (append_unescaped)."""
    return "".join(_ESCAPES.get(character, character) for character in text)
