"""Functions of the statement's context, variables, and the per-call generators.

Functions whose value is fixed for the statement (NOW(), USER(), LAST_INSERT_ID(),
@user_var, @@sysvar ...) become literals taken from the executing server's context; those
that change per call (UUID(), SYSDATE(), RAND()) become calls into that server's own
generators, registered in its DuckDB connection. The fast path evaluates a context value
as the literal its translation gives, where that literal is a plain number or string.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

from sqlglot import exp

from ..declined import Declined
from ..errors import ErrorCode, SqlError, not_supported
from ..operands import Operand
from ..temporal_types import time_literal_text
from .dates import UNIX_TIMESTAMP_OF
from .library import Compiling, SqlFunction, Translating, arguments_of
from .statement import StatementContext


def literal(value: object) -> exp.Expression:
    """A DuckDB literal for a Python value."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Literal.number(int(value))
    if isinstance(value, (int, Decimal)):
        return exp.Literal.number(str(value))
    if isinstance(value, float):
        return exp.cast(exp.Literal.number(repr(value)), exp.DataType.build("DOUBLE"))
    if isinstance(value, dt.datetime):
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")), exp.DataType.build("TIMESTAMP"))
    if isinstance(value, dt.date):
        return exp.cast(exp.Literal.string(value.isoformat()), exp.DataType.build("DATE"))
    if isinstance(value, dt.time):
        return exp.cast(exp.Literal.string(value.isoformat()), exp.DataType.build("TIME"))
    if isinstance(value, dt.timedelta):  # a TIME column's value: its text, which the column reads back
        return exp.Literal.string(time_literal_text(value))
    if isinstance(value, bytes):
        return exp.Anonymous(this="from_hex", expressions=[exp.Literal.string(value.hex())])
    return exp.Literal.string(str(value))


def system_variable_reference(node: exp.SessionParameter) -> tuple[str, str | None]:
    """(name, scope) of `@@x`, `@@session.x`, `@@global.x`."""
    scope = node.args.get("kind")
    return node.name.lower(), scope.upper() if isinstance(scope, str) else None


def statement_value(node: exp.Expression, compiler: Compiling) -> Operand:
    """The fast path's context value: the literal the translation gives it, typed as that
    literal; an error translating it (an unknown variable) is DuckDB's path to report."""
    if compiler.context is None:
        raise Declined
    try:
        value = compiler.context(node)
    except SqlError:
        raise Declined from None
    if not isinstance(value, (exp.Literal, exp.Null, exp.Neg)):
        raise Declined  # a CAST (a float, a date) or a call: DuckDB's to evaluate
    return compiler.operand(value)


def _from_context(read: Callable[[StatementContext], object], *names: str, nodes: tuple[type[exp.Expression], ...] = (), fast: bool = True) -> SqlFunction:
    """A function whose value is the statement's `read` of its context, as a literal; the
    fast path evaluates it unless that literal is not a plain one (`fast` False)."""
    return SqlFunction(
        names=names,
        nodes=nodes,
        duckdb=lambda node, translation: literal(read(translation.context)),
        python=statement_value if fast else None,
        from_context=True,
    )


def _per_call(generator: str, *names: str, nodes: tuple[type[exp.Expression], ...] = ()) -> SqlFunction:
    """A function that changes per call: a call of the server's generator `generator`."""
    return SqlFunction(names=names, nodes=nodes, duckdb=lambda node, translation: exp.Anonymous(this=generator, expressions=[]))


def _unix_timestamp(node: exp.Expression, translation: Translating) -> exp.Expression:
    """UNIX_TIMESTAMP(): the statement's time in seconds; UNIX_TIMESTAMP(t): t's."""
    if not arguments_of(node) and not node.expressions:
        return literal(int(translation.context.timestamp.replace(tzinfo=dt.timezone.utc).timestamp()))
    return UNIX_TIMESTAMP_OF.duckdb(node, translation)  # type: ignore[misc]



def _last_insert_id(node: exp.Expression, translation: Translating) -> exp.Expression:
    """LAST_INSERT_ID(): the statement's value; LAST_INSERT_ID(expr): expr, which the server
    remembers for the session's next LAST_INSERT_ID()."""
    if not node.expressions:
        return literal(translation.context.last_insert_id)
    if len(node.expressions) != 1:
        raise SqlError(ErrorCode.ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, "LAST_INSERT_ID")
    value = exp.cast(translation.rewrite(node.expressions[0]), exp.DataType.build("UBIGINT", dialect="duckdb"))
    return exp.Anonymous(this="rpl_last_insert_id", expressions=[value])


def _refused(name: str) -> SqlFunction:
    """A server function evaluated elsewhere (the executor's VALUES(col) of ON DUPLICATE KEY
    UPDATE) that no translated expression may hold."""

    def refuse(node: exp.Expression, translation: Translating) -> exp.Expression:
        raise not_supported(f"function {name}()")

    return SqlFunction(names=(name,), duckdb=refuse)


# Per-call functions: each becomes a call to a generator registered by the server.
PER_CALL_FUNCTIONS = {"UUID": "rpl_uuid", "UUID_SHORT": "rpl_uuid_short", "SYSDATE": "rpl_sysdate"}
# The calls of the server's generators (registered in its DuckDB connection by
# server_sim/server.py) and of DuckDB's own functions the translations here write.
GENERATORS = frozenset({*PER_CALL_FUNCTIONS.values(), "rpl_rand", "rpl_rand_seeded", "from_hex"})

# A typed node's MySQL name is the first of its entry's names.
CONTEXT_FUNCTIONS: tuple[SqlFunction, ...] = (
    _from_context(lambda c: c.timestamp, "CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP", "UTC_TIMESTAMP", nodes=(exp.CurrentTimestamp,), fast=False),
    _from_context(lambda c: c.timestamp.date(), "CURRENT_DATE", "CURDATE", "UTC_DATE", nodes=(exp.CurrentDate,), fast=False),
    _from_context(lambda c: c.timestamp.time(), "CURRENT_TIME", "CURTIME", "UTC_TIME", nodes=(exp.CurrentTime,), fast=False),
    SqlFunction(names=("UNIX_TIMESTAMP",), nodes=(exp.UnixSeconds,), duckdb=_unix_timestamp),
    _from_context(lambda c: c.user, "CURRENT_USER", "USER", "SESSION_USER", "SYSTEM_USER", nodes=(exp.CurrentUser,)),
    _from_context(lambda c: c.thread_id, "CONNECTION_ID"),
    SqlFunction(names=("LAST_INSERT_ID",), duckdb=_last_insert_id, python=statement_value, from_context=True),
    _from_context(lambda c: c.found_rows, "FOUND_ROWS"),
    _from_context(lambda c: c.row_count, "ROW_COUNT"),
    _from_context(lambda c: c.version, "VERSION", nodes=(exp.CurrentVersion,)),
    _from_context(lambda c: c.database, "DATABASE", "SCHEMA", nodes=(exp.CurrentSchema,)),
    SqlFunction(names=("SLEEP",), duckdb=lambda node, translation: literal(0)),
    _per_call(PER_CALL_FUNCTIONS["UUID"], "UUID", nodes=(exp.Uuid,)),
    _per_call(PER_CALL_FUNCTIONS["UUID_SHORT"], "UUID_SHORT"),
    _per_call(PER_CALL_FUNCTIONS["SYSDATE"], "SYSDATE"),
    _refused("VALUES"),
)

def _assignment_refused(node: exp.Expression, translation: Translating) -> exp.Expression:
    raise not_supported("a user variable assigned in an expression (@var := expr) other than in a SELECT of expressions without FROM")


# `@x` and `@@x`: literals of the statement's context, as the context functions; `@x := expr`
# where it is not in a SELECT of expressions without FROM (server_sim/execute/select.py) is refused.
VARIABLES: tuple[SqlFunction, ...] = (
    SqlFunction(nodes=(exp.PropertyEQ,), duckdb=_assignment_refused),
    SqlFunction(
        nodes=(exp.Parameter,),
        duckdb=lambda node, translation: literal(translation.context.user_variables.get(node.name.lower())),
        python=statement_value,
        from_context=True,
    ),
    SqlFunction(
        nodes=(exp.SessionParameter,),
        duckdb=lambda node, translation: literal(translation.context.system_variable(*system_variable_reference(node))),  # type: ignore[arg-type]
        python=statement_value,
        from_context=True,
    ),
)
