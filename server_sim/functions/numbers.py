"""RAND(), FLOOR(), arithmetic, comparisons, and the deterministic functions DuckDB
renders as MySQL evaluates them.

The fast path evaluates a subset exactly as DuckDB's SQL does: comparisons under DuckDB's
typing and SQL's three-valued logic, `x + n` / `x - n` within the column type's range,
the DOUBLE arithmetic of RAND() (Python's float arithmetic). Anything outside it declines.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from decimal import Decimal

from sqlglot import exp

from ..collation import text_key
from ..declined import Declined
from ..operands import DECIMAL_DIGITS, EXACT, Kind, Operand, Predicate, Values, both, exact_in_double
from .dates import INTERVAL_SUM, interval_sum
from .integer_arithmetic import integer_arithmetic
from .library import Compiling, SqlFunction, Translating


# -- RAND() and DOUBLE arithmetic -------------------------------------------------------


def _rand_call(node: exp.Expression, translation: Translating) -> exp.Expression:
    """RAND(): the server's generator; each RAND(N) call site has its own, started from N."""
    seed = node.this
    if seed is None:
        return exp.Anonymous(this="rpl_rand", expressions=[])
    return exp.Anonymous(this="rpl_rand_seeded", expressions=[seed, exp.Literal.number(translation.next_rand_site())])


def _rand_value(node: exp.Expression, compiler: Compiling) -> Operand:
    """RAND() called once a row, as DuckDB evaluates a whole vector."""
    rand = compiler.rand
    if rand is None or node.this is not None:
        raise Declined  # RAND(N) keeps a generator per call site in the server
    return Operand(lambda row: rand(), Kind.DOUBLE, literal=False)


def _floor_value(node: exp.Expression, compiler: Compiling) -> Operand:
    """FLOOR(x) of a DOUBLE x: a DOUBLE, NULL for NULL."""
    inner = compiler.operand(node.this)
    if inner.kind is not Kind.DOUBLE or node.args.get("decimals") is not None:
        raise Declined
    value = inner.value
    return Operand(lambda row: None if (x := value(row)) is None else float(math.floor(x)), Kind.DOUBLE, literal=False)


def _product_value(node: exp.Expression, compiler: Compiling) -> Operand:
    """`x * n` of a DOUBLE x and an integer literal n exact in a DOUBLE; both evaluated on
    every row (RAND() is called even where the other side is NULL)."""
    left, right = compiler.operand(node.this), compiler.operand(node.expression)
    double, factor = (left, right) if left.kind is Kind.DOUBLE else (right, left)
    if double.kind is not Kind.DOUBLE or not exact_in_double(factor) or not factor.literal:
        raise Declined
    return Operand(both(operator.mul, left.value, right.value), Kind.DOUBLE, literal=False)


def _sum_value(node: exp.Expression, compiler: Compiling) -> Operand:
    """`x + n` / `x - n` / `n + x` with an integer literal n: the value of a column's type,
    declined where it would leave that type's range (DuckDB or the type's coercion then
    raises the server's error)."""
    left, right = compiler.operand(node.this), compiler.operand(node.expression)
    if right.literal and not left.literal:
        bounded, fixed = left, right
    elif left.literal and not right.literal and isinstance(node, exp.Add):
        bounded, fixed = right, left
    else:
        raise Declined
    if bounded.kind is not Kind.NUMBER or bounded.bounds is None or fixed.kind is not Kind.NUMBER or fixed.digits[1]:
        raise Declined
    low, high = bounded.bounds
    adding = isinstance(node, exp.Add)
    first, second = left.value, right.value

    def value(row: Values) -> object:
        a, b = first(row), second(row)
        if a is None or b is None:
            return None
        if isinstance(a, Decimal) or isinstance(b, Decimal):
            result = EXACT.add(a, b) if adding else EXACT.subtract(a, b)
        else:
            result = a + b if adding else a - b
        if not low <= result <= high:  # type: ignore[operator]
            raise Declined
        return result

    whole, scale = bounded.digits
    return Operand(value, Kind.NUMBER, literal=False, digits=(whole + 1, scale), bounds=bounded.bounds)


# -- comparisons ------------------------------------------------------------------------


def comparison(compare: Callable[[object, object], bool], left: Operand, right: Operand) -> Predicate:
    """`left <op> right` under DuckDB's typing: numbers with numbers (where their common
    DECIMAL type holds both exactly), text with text of a collated column; NULL with anything;
    a DOUBLE with a DOUBLE or an integer, both sides evaluated on every row."""
    kinds = {left.kind, right.kind}
    first, second = left.value, right.value
    if Kind.DOUBLE in kinds:
        if not all(side.kind is Kind.DOUBLE or exact_in_double(side) for side in (left, right)):
            raise Declined
        return both(compare, first, second)  # type: ignore[return-value]
    if Kind.NULL in kinds:
        return lambda row: None
    if left.literal and right.literal:
        raise Declined  # no column's collation or type decides
    if kinds == {Kind.NUMBER}:
        whole = max(left.digits[0], right.digits[0])
        scale = max(left.digits[1], right.digits[1])
        if scale and whole + scale > DECIMAL_DIGITS:
            raise Declined
        return lambda row: None if (a := first(row)) is None or (b := second(row)) is None else compare(a, b)
    if kinds == {Kind.TEXT}:
        if left.collation and right.collation and left.collation != right.collation:
            raise Declined  # which collation compares them, or 1267: the translation's
        return lambda row: None if (a := first(row)) is None or (b := second(row)) is None else compare(text_key(a), text_key(b))
    raise Declined


def _comparison_entry(node: type[exp.Expression], compare: Callable[[object, object], bool]) -> SqlFunction:
    def condition(call: exp.Expression, compiler: Compiling) -> Predicate:
        return comparison(compare, compiler.operand(call.this), compiler.operand(call.expression))

    return SqlFunction(nodes=(node,), condition=condition)


COMPARISONS: tuple[SqlFunction, ...] = (
    _comparison_entry(exp.EQ, operator.eq),
    _comparison_entry(exp.NEQ, operator.ne),
    _comparison_entry(exp.LT, operator.lt),
    _comparison_entry(exp.LTE, operator.le),
    _comparison_entry(exp.GT, operator.gt),
    _comparison_entry(exp.GTE, operator.ge),
)

def _sum_call(node: exp.Expression, translation: Translating) -> exp.Expression:
    """`d + INTERVAL n unit` is DATE_ADD; any other sum is MySQL's integer arithmetic or DuckDB's."""
    return INTERVAL_SUM.duckdb(node, translation) if interval_sum(node) else integer_arithmetic(node, translation)  # type: ignore[misc]


ARITHMETIC: tuple[SqlFunction, ...] = (
    SqlFunction(nodes=(exp.Add, exp.Sub), duckdb=_sum_call, python=_sum_value),
    SqlFunction(nodes=(exp.Mul,), duckdb=integer_arithmetic, python=_product_value),
    SqlFunction(names=("RAND",), nodes=(exp.Rand,), duckdb=_rand_call, python=_rand_value),
    SqlFunction(nodes=(exp.Floor,), python=_floor_value),
)

# Deterministic functions whose DuckDB rendering by sqlglot matches MySQL closely enough;
# the fast path declines them.
PORTABLE: tuple[SqlFunction, ...] = (
    SqlFunction(
        nodes=(
            exp.Abs, exp.Ceil, exp.Count, exp.Greatest, exp.If, exp.Least, exp.Max, exp.Min,
            exp.Nullif, exp.Pow, exp.Round, exp.Sign, exp.Sqrt, exp.Sum, exp.Case, exp.Ln,
            exp.Exp, exp.Trunc,
        ),
    ),
)
