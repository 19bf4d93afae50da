"""The statements about stored routines, recognised by their form before sqlglot sees
them (it reads them as opaque commands): CREATE PROCEDURE, CREATE FUNCTION with a
parameter list (a stored function; without one it is a loadable function, `udf.py`), and
CALL, whose procedure name and arguments become the statement's tree (an
`exp.Anonymous`). The definitions are read by `compound/routine.py` when they run."""

from __future__ import annotations

import datetime as dt
import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from .errors import not_supported
from .functions.context import literal
from .statement import Statement, StatementKind
from .syntax import syntax_error, unquoted_name

_NAME = r"(?:`(?:[^`]|``)+`|\w+)"
_DEFINER = r"DEFINER\s*=\s*(?:CURRENT_USER(?:\s*\(\s*\))?|(?:`[^`]*`|'[^']*'|\"[^\"]*\"|[\w.%-]+)(?:\s*@\s*(?:`[^`]*`|'[^']*'|\"[^\"]*\"|[\w.%-]+))?)"
_CREATE_ROUTINE = re.compile(
    rf"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:{_DEFINER}\s+)?(?:(?P<procedure>PROCEDURE)\b|FUNCTION\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:{_NAME}\s*\.\s*)?{_NAME}\s*\()",
    re.IGNORECASE,
)
_CALL = re.compile(rf"^\s*CALL\s+(?:(?P<db>{_NAME})\s*\.\s*)?(?P<name>{_NAME})\s*(?:\((?P<arguments>.*)\))?\s*$", re.IGNORECASE | re.DOTALL)


def routine_statement(text: str) -> Statement | None:
    """CREATE PROCEDURE, CREATE FUNCTION (stored) or CALL; None for any other statement."""
    created = _CREATE_ROUTINE.match(text)
    if created is not None:
        return Statement(text, StatementKind.CREATE_PROCEDURE if created.group("procedure") else StatementKind.CREATE_FUNCTION)
    if not re.match(r"^\s*CALL\b", text, re.IGNORECASE):
        return None
    call = _CALL.match(text)
    if call is None:
        raise syntax_error(text, len(text.split(None, 1)[0]) + 1)
    database = call.group("db")
    if database is not None and database.strip("`").lower() != "test":
        raise not_supported(f"CALL of a procedure in database {database!r} (the simulator models one database)")
    arguments = call.group("arguments") or ""
    values: list[exp.Expression] = []
    if arguments.strip():
        try:
            tree = sqlglot.parse_one(f"SELECT {arguments}", read="mysql")
        except (ParseError, TokenError):
            raise syntax_error(text, call.start("arguments")) from None
        if not isinstance(tree, exp.Select) or any(v for k, v in tree.args.items() if k != "expressions"):
            raise syntax_error(text, call.start("arguments"))
        values = list(tree.expressions)
    name = unquoted_name(call.group("name"))
    return Statement(text, StatementKind.CALL, exp.Anonymous(this=name, expressions=values))


# The typed literals NAME_CONST carries a temporal variable's value in.
_TEMPORAL = {
    exp.DataType.Type.DATE: dt.date.fromisoformat,
    exp.DataType.Type.TIMESTAMPTZ: dt.datetime.fromisoformat,
    exp.DataType.Type.TIMESTAMP: dt.datetime.fromisoformat,
}


def without_name_const(tree: exp.Expression) -> exp.Expression:
    """`tree` with each NAME_CONST('name', value) the value it stands for: the constant a
    procedure's statement was logged with (a number, NULL, or a string with the character
    set and collation of its variable, which are the database's); any other is refused."""

    def constant(node: exp.Expression) -> exp.Expression:
        if not (isinstance(node, exp.Anonymous) and node.name.upper() == "NAME_CONST"):
            return node
        if len(node.expressions) != 2 or not isinstance(node.expressions[0], exp.Literal):
            raise not_supported(f"NAME_CONST of anything but a name and a constant ({node.sql(dialect='mysql')})")
        value = node.expressions[1]
        if isinstance(value, exp.Collate) and isinstance(value.this, exp.Introducer):
            text = value.this.expression
            binary = value.this.name.lower() == "_binary" and isinstance(text, exp.Literal)
            return exp.Unhex(this=exp.Literal.string(text.this.encode("latin1").hex())) if binary else text
        if isinstance(value, exp.Cast) and isinstance(value.this, exp.Literal) and value.to.this in _TEMPORAL:
            return literal(_TEMPORAL[value.to.this](value.this.this))
        if isinstance(value, exp.Neg) and isinstance(value.this, exp.Literal) and not value.this.is_string:
            return value
        if not isinstance(value, (exp.Literal, exp.Null)):
            raise not_supported(f"NAME_CONST of {value.sql(dialect='mysql')}")
        return value

    return tree.transform(constant)


_NOT_BLOCK_ENDS = frozenset({"IF", "LOOP", "WHILE", "REPEAT"})


def block_change(tokens: list[Token], index: int) -> int:
    """How a token of a CREATE statement changes its BEGIN ... END / CASE ... END depth: a
    script's `;` splits statements only outside them."""
    word = tokens[index].text.upper()
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if word == "BEGIN" and tokens[index].token_type is not TokenType.STRING:
        return 0 if following is None or following.token_type is TokenType.SEMICOLON or following.text.upper() == "WORK" else 1
    if word == "CASE" and tokens[index].token_type is not TokenType.STRING:
        return 1
    if tokens[index].token_type is TokenType.END:
        return 0 if following is not None and following.text.upper() in _NOT_BLOCK_ENDS else -1
    return 0
