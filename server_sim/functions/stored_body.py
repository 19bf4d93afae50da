"""A stored function whose body is a compound statement, called per row: a call only the
executor writes (`body_call`), whose node carries the `BodyRun` that runs the body for one
row's argument values and gives its result stored in the RETURNS type.

Both evaluators call that one runner: the fast path directly, DuckDB through one
registered implementation that finds the runner by the key the call names (the runner is
kept alive by the statement's tree, so the registry holds it weakly). The body's reads
inside DuckDB's query cannot use that query's connection: the runner is told it is
`nested`, and reads through another (`Storage.nested`). An error of the body travels
through DuckDB as stored_result carries one."""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from ..declined import Declined
from ..errors import ErrorCode, SqlError, not_supported
from ..operands import Kind, Operand, Values
from ..types import ColumnType, TypeFamily, value_text
from .library import Compiling, SqlFunction, Translating
from .native import NATIVES, TEXT, Native
from .unmodelled import Unmodelled
from .carried import carried
from .stored_result import value_of_text

BODY_CALL = "rpl body"  # a name a scenario can only write quoted: there, an unknown function
MARK = "rpl_body"  # the meta key holding the call's BodyRun
_DUCKDB_NAME = "rpl_fn_body"
_KEYS = itertools.count(1)


@dataclass(eq=False)
class BodyRun:
    """Runs a compound body for one row's argument values: `run(values, nested)`, `nested`
    when DuckDB's query calls it. `returns`: the RETURNS type the result is stored in."""

    run: Callable[[list[object], bool], object]
    returns: ColumnType | None
    changes_data: bool = False  # then called only by the Python evaluator, row by row
    key: str = field(default_factory=lambda: str(next(_KEYS)))

    def __deepcopy__(self, memo: dict) -> BodyRun:
        """A copy of the statement's tree calls the same runner (the one registered)."""
        return self


_RUNS: weakref.WeakValueDictionary[str, BodyRun] = weakref.WeakValueDictionary()


def body_call(arguments: list[exp.Expression], body: BodyRun) -> exp.Expression:
    """The call that runs `body` for each row's values of `arguments`."""
    _RUNS[body.key] = body
    call = exp.Anonymous(this=BODY_CALL, expressions=[argument.copy() for argument in arguments])
    call.meta[MARK] = body
    return call


def _marked(node: exp.Expression) -> BodyRun | None:
    return node.meta.get(MARK) if node.meta else None


def call_body(call: exp.Expression, values: list[object]) -> object:
    """The result of a body call for its arguments' `values`, run here (not inside DuckDB)."""
    body = _marked(call)
    assert body is not None
    return body.run(values, False)


def changing_calls(tree: exp.Expression) -> list[exp.Expression]:
    """The calls in `tree` of bodies that change data."""
    return [node for node in tree.find_all(exp.Anonymous) if (body := _marked(node)) is not None and body.changes_data]


def _from_duckdb(key: str, texts: list[str | None], types: list[str]) -> str | None:
    """DuckDB's call: the arguments (as text, with their DuckDB types) given to the body,
    its result as text."""
    body = _RUNS.get(key)
    if body is None:
        raise Unmodelled("a stored function's body called after its statement ended")
    values = [None if text is None else value_of_text(text, kind) for text, kind in zip(texts, types)]
    try:
        value = body.run(values, True)
    except SqlError as error:
        raise carried(error) from None
    return None if value is None else value_text(value)


NATIVES[_DUCKDB_NAME] = Native(_DUCKDB_NAME, _from_duckdb, (TEXT, TEXT + "[]", TEXT + "[]"), TEXT, null_in_null_out=False)


def _translate(node: exp.Expression, translation: Translating) -> exp.Expression:
    body = _marked(node)
    if body is None:  # `rpl body`(...) in a statement: no function of the server's
        raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST, f"{translation.context.database}.{node.name}")
    if body.changes_data:
        # DuckDB would call it for its own choice of rows, in its own order, inside its query.
        raise not_supported("a stored function that changes data, called per row where the simulator evaluates the rows in DuckDB")
    values = [translation.rewrite(argument.copy()) for argument in node.expressions]  # each one a parameter's value, apart from the statement
    texts = [exp.cast(value.copy(), exp.DataType.build("VARCHAR", dialect="duckdb")) for value in values]
    types = [exp.Anonymous(this="typeof", expressions=[value]) for value in values]
    lists = [exp.Anonymous(this="list_value", expressions=items) if items else exp.cast(exp.Array(), exp.DataType.build("VARCHAR[]", dialect="duckdb")) for items in (texts, types)]
    call = exp.Anonymous(this=_DUCKDB_NAME, expressions=[exp.Literal.string(body.key), *lists])
    if body.returns is None:
        return call
    return exp.Cast(this=call, to=exp.DataType.build(body.returns.sql, dialect="mysql"))


_KINDS = {TypeFamily.STRING: Kind.TEXT, TypeFamily.INTEGER: Kind.NUMBER, TypeFamily.DECIMAL: Kind.NUMBER}


def _evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
    body = _marked(node)
    if body is None or body.returns is None:
        raise Declined
    returns = body.returns
    kind = _KINDS.get(returns.family)
    if kind is None:
        raise Declined  # DuckDB's typing of a float or temporal result: its path
    operands = [compiler.operand(argument) for argument in node.expressions]
    if any(operand.kind is Kind.DOUBLE for operand in operands):
        raise Declined
    found = [operand.value for operand in operands]

    def value(row: Values) -> object:
        return body.run([argument(row) for argument in found], False)

    digits = ((returns.length or 10) - (returns.scale or 0), returns.scale or 0) if returns.family is TypeFamily.DECIMAL else (20, 0)
    return Operand(value, kind, literal=False, digits=digits if kind is Kind.NUMBER else (0, 0))


STORED_BODY = (SqlFunction(names=(BODY_CALL.upper(),), duckdb=_translate, python=_evaluate),)
