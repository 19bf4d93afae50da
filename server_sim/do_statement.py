"""DO expr [, expr] ...: the expressions evaluated for what they do (GET_LOCK(), SLEEP(),
`@v := ...`), as a SELECT of them is, and their values thrown away. It is never logged, as
a SELECT is not. Its grammar has no FROM, WHERE or INTO."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from sqlglot import exp

from .errors import SqlError
from .statement import Statement, StatementKind
from .syntax import syntax_error

DO_START = re.compile(r"^\s*DO\b", re.IGNORECASE)
_SELECT_ONLY = re.compile(r"\b(?:FROM|WHERE|GROUP|HAVING|ORDER|LIMIT|INTO|FOR|LOCK|DISTINCT)\b", re.IGNORECASE)


def parse_do(text: str, parse: Callable[[str], Statement]) -> Statement:
    """The DO statement: `parse` (the parser's) reads its expressions as a SELECT's, and
    a syntax error is placed in DO's own text."""
    start = DO_START.match(text).end()  # type: ignore[union-attr]
    offset = start - len("SELECT")
    try:
        statement = parse("SELECT" + text[start:])
    except SqlError as error:
        if error.position is None:
            raise
        raise syntax_error(text, max(error.position + offset, start)) from None
    ast = statement.ast
    if statement.kind is not StatementKind.SELECT or not isinstance(ast, exp.Select) or not ast.expressions:
        raise syntax_error(text, start)
    if any(ast.args.get(clause) for clause in ("from_", "where", "group", "having", "order", "limit", "into", "locks", "distinct")):
        match = _SELECT_ONLY.search(text, start)
        raise syntax_error(text, match.start() if match else len(text))
    return dataclasses.replace(statement, sql=text, discards_rows=True)
