"""MySQL's `/` of exact numbers (integers and DECIMALs). The quotient is a DECIMAL whose
declared scale is its dividend's plus div_precision_increment (4), at most 30; its value
is the long division cut (not rounded) after whole 9-digit words of fraction enough for
both operands' fractions plus 4 (strings/decimal.c do_div_mod): 1/3 is 0.333333333, 2/3
0.666666666, 1.123456/3 0.374485333333333333. Arithmetic goes on with that value (1/3*3
is 0.999999999, shown 1.0000) and a column stores it rounded to its own scale (2/3 into
DECIMAL(10,2) is 0.67, into DECIMAL(20,12) 0.666666666000, into INT 1); the declared
scale rounds it where it is shown, compared (`a / b = 0.3333` is true for 1/3) or
converted to text, and is a window's AVG (recorded on MariaDB 10.11; MySQL 8.0 shares the
library). `/` with a DOUBLE operand is a DOUBLE, as DuckDB's.

DuckDB divides every number as a DOUBLE, so an exact quotient is computed here, by
`rpl_exact_division` (Python's decimals, registered as a native) and kept as a
DECIMAL(38, digits). Where the declared scale decides, the quotient is rounded to it
where the server is known to read it so (a comparison of the quotient itself, a window's
AVG: MariaDB) and refused elsewhere (1235: other comparisons, a function that is not
arithmetic, an ORDER BY or GROUP BY, a derived table), and so is a division whose
operand's type the simulator cannot tell (a string, a temporal value); a SELECT shows the
value's digits, not the declared scale's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, localcontext

from sqlglot import exp

from ..errors import not_supported
from ..types import ColumnType, TypeFamily
from .library import mysql_name
from .native import NATIVES, TEXT, Native
from .stored_result import stored_type

DIV_PRECISION_INCREMENT = 4  # the servers' default; the variable itself is refused (sysvars)
MAX_SCALE = 30  # DECIMAL_MAX_SCALE
WORD_DIGITS = 9  # DIG_PER_DEC1: the decimal library's digits per word
EXACT_DIVISION = "rpl_exact_division"


@dataclass(frozen=True)
class Exact:
    """An exact number's type: its declared scale and the fraction digits its value carries."""

    scale: int
    digits: int


class Double:
    """The type of an approximate operand (a DOUBLE, or a string read as one)."""


DOUBLE = Double()
NumericType = Exact | Double
ColumnTypeOf = Callable[[exp.Column], ColumnType | None]

_WHOLE = (exp.Count, exp.IntDiv, exp.Floor, exp.Ceil, exp.Sign)
_SAME_AS_ARGUMENT = (exp.Abs, exp.Min, exp.Max, exp.Sum)
# What a quotient may flow through on its way to a column: arithmetic and the functions
# whose value is the arithmetic's, none reading the declared scale.
_PASSING = (exp.Paren, exp.Neg, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv, exp.Abs, exp.Sum, exp.Min, exp.Max, exp.Avg, exp.Round, exp.Floor, exp.Ceil, exp.Alias, exp.Window)


def numeric_type(node: exp.Expression, column_type: ColumnTypeOf) -> NumericType | None:
    """The MySQL type of `node` as arithmetic reads it; None where the simulator cannot tell."""
    if isinstance(node, (exp.Paren, exp.Neg)):
        return numeric_type(node.this, column_type)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return None  # read as a DOUBLE, text that is no number as 0 with a warning: not modelled
        if "e" in node.name.lower():
            return DOUBLE
        digits = len(node.name.partition(".")[2])
        return Exact(digits, digits)
    if isinstance(node, (exp.Null, exp.Boolean)):
        return Exact(0, 0)
    if isinstance(node, exp.Column):
        found = column_type(node)
        return _of_column(found) if found is not None else None
    if isinstance(node, exp.Cast):
        return _of_cast(node.to)
    if isinstance(node, exp.Rand):
        return DOUBLE
    if isinstance(node, exp.Anonymous) and (stored := stored_type(node)) is not None:
        return _of_column(stored)
    if isinstance(node, _WHOLE):
        argument = Exact(0, 0) if isinstance(node, (exp.Count, exp.IntDiv)) else numeric_type(node.this, column_type)
        return argument if argument is None or isinstance(argument, Double) else Exact(0, 0)
    if isinstance(node, _SAME_AS_ARGUMENT):
        return numeric_type(node.this, column_type)
    if isinstance(node, exp.Avg):
        return _quotient(numeric_type(node.this, column_type), Exact(0, 0))
    if isinstance(node, exp.Round):
        return _rounded(node, column_type)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mod, exp.Mul, exp.Div)):
        return _arithmetic(node, numeric_type(node.this, column_type), numeric_type(node.expression, column_type))
    return None


def _of_column(column: ColumnType) -> NumericType | None:
    family = column.family
    if family in (TypeFamily.INTEGER, TypeFamily.YEAR, TypeFamily.BIT):
        return Exact(0, 0)
    if family is TypeFamily.DECIMAL:
        return Exact(column.scale or 0, column.scale or 0)
    if family is TypeFamily.FLOAT:
        return DOUBLE
    return None  # text, temporal, binary, ENUM/SET and JSON values become numbers their own ways


def _of_cast(to: exp.DataType) -> NumericType | None:
    if to.is_type(*exp.DataType.INTEGER_TYPES):
        return Exact(0, 0)
    if to.is_type(exp.DataType.Type.DECIMAL):
        params = to.expressions
        scale = int(params[1].name) if len(params) > 1 else 0
        return Exact(scale, scale)
    if to.is_type(*exp.DataType.REAL_TYPES):
        return DOUBLE
    return None


def _rounded(node: exp.Round, column_type: ColumnTypeOf) -> NumericType | None:
    argument = numeric_type(node.this, column_type)
    places = node.args.get("decimals")
    if argument is None or isinstance(argument, Double):
        return argument
    if places is None:
        return Exact(0, 0)
    if not isinstance(places, exp.Literal) or places.is_string or "." in places.name:
        return None
    kept = max(0, min(int(places.name), MAX_SCALE))
    return Exact(kept, min(kept, argument.digits))


def _arithmetic(node: exp.Expression, left: NumericType | None, right: NumericType | None) -> NumericType | None:
    if left is None or right is None:
        return None
    if isinstance(left, Double) or isinstance(right, Double):
        return DOUBLE
    if isinstance(node, exp.Div):
        return _quotient(left, right)
    if isinstance(node, exp.Mul):
        return Exact(min(left.scale + right.scale, MAX_SCALE), left.digits + right.digits)
    return Exact(max(left.scale, right.scale), max(left.digits, right.digits))


def _quotient(dividend: NumericType | None, divisor: NumericType) -> NumericType | None:
    if dividend is None or isinstance(dividend, Double) or isinstance(divisor, Double):
        return dividend if dividend is None else DOUBLE
    words = -(-(dividend.digits + divisor.digits + DIV_PRECISION_INCREMENT) // WORD_DIGITS)
    return Exact(min(dividend.scale + DIV_PRECISION_INCREMENT, MAX_SCALE), words * WORD_DIGITS)


@dataclass(frozen=True)
class Quotient:
    """How an exact quotient is computed: the fraction digits its value carries, and the
    declared scale it is rounded to where that scale is its value (a comparison reading it
    directly, a window's AVG; None: nowhere)."""

    digits: int
    compared_at: int | None = None


def quotient(node: exp.Div | exp.Avg, column_type: ColumnTypeOf, in_condition: bool = False, declared_scale_read: bool = False) -> Quotient | None:
    """The exact quotient `node` computes (a division, or AVG: SUM / COUNT); None where it
    is a DOUBLE. 1235 where an operand's type cannot be told, the quotient's digits pass
    DuckDB's, or the place it stands reads its declared scale (`in_condition`: the tree
    translated is a condition or an ordering) other than a comparison of the quotient
    itself, or a window's AVG, on a server known to read it at that scale there
    (`declared_scale_read`)."""
    if isinstance(node, exp.Avg):
        argument = node.this.expressions[0] if isinstance(node.this, exp.Distinct) and len(node.this.expressions) == 1 else node.this
        kind = _quotient(numeric_type(argument, column_type), Exact(0, 0))
    else:
        kind = _arithmetic(node, numeric_type(node.this, column_type), numeric_type(node.expression, column_type))
    written = node.sql(dialect="mysql")
    if kind is None:
        raise not_supported(
            f"the division {written!r} of an operand whose type the simulator cannot tell"
            " (the server divides exact numbers as a DECIMAL, others as a DOUBLE)"
        )
    if isinstance(kind, Double):
        return None
    if kind.digits > MAX_SCALE:
        raise not_supported(f"the division {written!r}, whose quotient carries {kind.digits} fraction digits")
    outer = node.parent if isinstance(node.parent, exp.Window) else node
    if outer is not node:
        # A window's AVG is its declared scale's value (recorded on MariaDB: 0.3333 for 1 / 3); MySQL's is not recorded.
        if not declared_scale_read:
            raise not_supported(f"{written} as a window function of an exact argument (its digits are not recorded for this server)")
    elif declared_scale_read and isinstance(_compared_side(outer).parent, _ROUNDED_COMPARISONS):
        return Quotient(kind.digits, kind.scale)
    where = _reading_scale(outer, in_condition)
    if where is not None:
        raise not_supported(f"the division {written!r} in {where} (the server rounds its quotient there to its declared scale, {kind.scale} digits)")
    return Quotient(kind.digits, kind.scale if outer is not node else None)


def _compared_side(node: exp.Expression) -> exp.Expression:
    """The side of a comparison `node` is, through parentheses and a scalar subquery's item."""
    while True:
        parent = node.parent
        if isinstance(parent, exp.Paren):
            node = parent
        elif isinstance(parent, exp.Select) and node.arg_key == "expressions" and len(parent.expressions) == 1 and isinstance(parent.parent, exp.Subquery):
            node = parent.parent
        else:
            return node


# Comparisons that read a quotient at its declared scale (recorded on MariaDB: `a / b =
# 0.3333` is true for 1 / 3, `2 / 3 > 0.666667` too, and `1.3333 = (SELECT AVG(a) ...)`;
# IN and BETWEEN read the value).
_ROUNDED_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.In, exp.Between, exp.Like)


def _reading_scale(node: exp.Expression, in_condition: bool) -> str | None:
    """Where the quotient's way out of its expression reads the declared scale (None: it
    reaches a column's value, a SELECT's item, a SET or VALUES as a number)."""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, (exp.Div, exp.Avg)) or (isinstance(parent, exp.Window) and isinstance(parent.this, exp.Avg) and child is not parent.this):
            return None  # the value goes on into another quotient, which answers for its own place
        if isinstance(parent, _PASSING) or isinstance(parent, exp.Coalesce) or (isinstance(parent, exp.If) and child.arg_key in ("true", "false")):
            child, parent = parent, parent.parent  # a value of IF(), or a CASE's THEN
        elif isinstance(parent, exp.Case) and (child.arg_key == "default" or (child.arg_key == "ifs" and isinstance(child, exp.If) and node is not child.this)):
            child, parent = parent, parent.parent  # a CASE's value: a THEN (come through its If) or its ELSE
        elif isinstance(parent, exp.Select) and child.arg_key == "expressions" and isinstance(parent.parent, exp.Subquery) and not isinstance(parent.parent.parent, (exp.From, exp.Join)):
            child, parent = parent.parent, parent.parent.parent  # a scalar subquery's value
        else:
            break
    if parent is None:
        return "a condition or an ordering" if in_condition else None  # a value translated apart from its statement
    if isinstance(parent, exp.Select) and child.arg_key == "expressions":
        if isinstance(parent.parent, exp.Subquery):
            return "a derived table (the outer query reads its declared type)"
        return None  # (CREATE ... SELECT of an expression declares its column: a column's value, as INSERT ... SELECT)
    if isinstance(parent, (exp.Tuple, exp.Values)) and parent.find_ancestor(exp.Insert) is not None:
        return None
    if isinstance(parent, exp.EQ) and child.arg_key == "expression" and isinstance(parent.parent, (exp.Update, exp.Insert, exp.OnConflict)):
        return None  # UPDATE ... SET c = quotient, ON DUPLICATE KEY UPDATE c = quotient
    if isinstance(parent, exp.Is):
        return None  # IS NULL reads no digits
    if isinstance(parent, _COMPARISONS):
        return "a comparison"
    if isinstance(parent, (exp.Order, exp.Ordered)):
        return "an ORDER BY"
    if isinstance(parent, (exp.Where, exp.Having, exp.Join, exp.Group)):
        return f"a {parent.key.upper()}"
    if isinstance(parent, exp.Func):
        return f"{parent.name.upper() if isinstance(parent, exp.Anonymous) else mysql_name(parent)}()"
    return f"a {parent.key.upper()}"


def exact_average(node: exp.Avg, translated: exp.Expression, computed: Quotient, window: exp.Window | None = None) -> exp.Expression:
    """AVG of an exact argument (`translated`), as the server computes it: SUM / COUNT over
    the same rows (DISTINCT, window), divided as `/` divides."""
    distinct = isinstance(node.this, exp.Distinct)
    parts: list[exp.Expression] = []
    for aggregate in (exp.Sum, exp.Count):
        argument = exp.Distinct(expressions=[translated.copy()]) if distinct else translated.copy()
        call: exp.Expression = aggregate(this=argument)
        if window is not None:
            call = window.copy()
            call.set("this", aggregate(this=argument))
        parts.append(call)
    return exact_quotient(parts[0], parts[1], computed)


def exact_quotient(dividend: exp.Expression, divisor: exp.Expression, computed: Quotient) -> exp.Expression:
    """The DuckDB call computing an exact quotient (the operands translated), a DECIMAL."""
    texts = [exp.cast(operand, exp.DataType.build("VARCHAR", dialect="duckdb")) for operand in (dividend, divisor)]
    call = exp.Anonymous(this=EXACT_DIVISION, expressions=[*texts, exp.Literal.number(computed.digits)])
    value = exp.cast(call, exp.DataType.build(f"DECIMAL(38, {computed.digits})", dialect="duckdb"))
    if computed.compared_at is None:
        return value
    # exp.Cast itself: exp.cast() keeps a cast to DECIMAL of any scale as it is. DuckDB's cast rounds half away from zero.
    return exp.Cast(this=value, to=exp.DataType.build(f"DECIMAL(38, {computed.compared_at})", dialect="duckdb"))


def _exact_division(dividend: str, divisor: str, digits: int) -> str | None:
    """dividend / divisor cut after `digits` fraction digits (None for a zero divisor: the
    caller's CASE gives the server's NULL or 1365)."""
    with localcontext() as context:
        context.prec = 200
        denominator = Decimal(divisor)
        if denominator == 0:
            return None
        quotient = (Decimal(dividend).scaleb(digits) / denominator).quantize(Decimal(1), rounding=ROUND_DOWN).scaleb(-digits)
    return format(quotient, "f")


NATIVES[EXACT_DIVISION] = Native(EXACT_DIVISION, _exact_division, (TEXT, TEXT, "INTEGER"), TEXT)
