"""`+`, `-` and `*` of two integers as MySQL computes them: in BIGINT, or BIGINT UNSIGNED
when either operand is unsigned, a result outside that range error 1690 (the server's
Item_func_plus/minus/mul int_op). DuckDB would compute in the operands' own type (a
TINYINT column times 100 overflows TINYINT) and fail otherwise, so the translation widens
both operands to HUGEINT and has the result checked by one Python implementation, which
evaluates each operand once. Which case applies is read from DuckDB's types of the
operands when the statement binds; any other operands keep DuckDB's own arithmetic."""

from __future__ import annotations

from sqlglot import exp

from ..errors import ErrorCode, SqlError
from .carried import carried
from .library import Translating
from .native import HUGE, NATIVES, TEXT, Native

# HUGEINT: the result of another of these operations (its CASE's type), checked again as
# signed (an unsigned intermediate result is not told apart).
_SIGNED_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT")
_UNSIGNED_TYPES = ("UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")
_SIGNED_RANGE = (-(2**63), 2**63 - 1)
_UNSIGNED_RANGE = (0, 2**64 - 1)


def _within(value: int, text: str, unsigned: bool) -> int:
    low, high = _UNSIGNED_RANGE if unsigned else _SIGNED_RANGE
    if not low <= value <= high:
        raise carried(SqlError(ErrorCode.ER_DATA_OUT_OF_RANGE, "BIGINT UNSIGNED" if unsigned else "BIGINT", text))
    return value


_SIGNED_RESULT = Native("rpl_bigint_result", lambda value, text: _within(value, text, False), (HUGE, TEXT), "BIGINT")
_UNSIGNED_RESULT = Native("rpl_bigint_unsigned_result", lambda value, text: _within(value, text, True), (HUGE, TEXT), "UBIGINT")
NATIVES[_SIGNED_RESULT.name] = _SIGNED_RESULT
NATIVES[_UNSIGNED_RESULT.name] = _UNSIGNED_RESULT


def _type_in(operand: exp.Expression, types: tuple[str, ...]) -> exp.Expression:
    typed = exp.Anonymous(this="typeof", expressions=[operand.copy()])
    return exp.In(this=typed, expressions=[exp.Literal.string(name) for name in types])


def integer_arithmetic(node: exp.Expression, translation: Translating) -> exp.Expression:
    """The DuckDB form of `a + b`, `a - b` or `a * b`: MySQL's integer arithmetic where both
    operands are integers, DuckDB's own otherwise."""
    left, right = translation.rewrite(node.this), translation.rewrite(node.expression)
    operation = type(node)
    plain = operation(this=left, expression=right)
    wide = operation(this=exp.Cast(this=left.copy(), to=_HUGEINT.copy()), expression=exp.Cast(this=right.copy(), to=_HUGEINT.copy()))
    text = exp.Literal.string(node.sql(dialect="mysql"))
    integers = exp.And(this=_type_in(left, _INTEGER_TYPES), expression=_type_in(right, _INTEGER_TYPES))
    unsigned = exp.Or(this=_type_in(left, _UNSIGNED_TYPES), expression=_type_in(right, _UNSIGNED_TYPES))
    return exp.Case(
        ifs=[
            exp.If(this=exp.And(this=integers, expression=unsigned), true=exp.Anonymous(this=_UNSIGNED_RESULT.name, expressions=[wide, text])),
            exp.If(this=integers.copy(), true=exp.Anonymous(this=_SIGNED_RESULT.name, expressions=[wide.copy(), text.copy()])),
        ],
        default=plain,
    )


_HUGEINT = exp.DataType.build("HUGEINT", dialect="duckdb")
_INTEGER_TYPES = _SIGNED_TYPES + _UNSIGNED_TYPES
