"""The values the fast path computes, typed as DuckDB types them.

An operand is a closure over a row plus what DuckDB's typing needs to know about it (its
kind, whether it is a literal, a number's digits, the range its column type allows), so
that comparisons and arithmetic can decline exactly where DuckDB would answer differently.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from sqlglot import exp

from .declined import Declined
from .types import ColumnType

Values = tuple  # a row's values in the catalog's column order
Value = Callable[[Values], object]
Predicate = Callable[[Values], "bool | None"]  # None: SQL's UNKNOWN
# The translation of one node for this statement on this server (Translator.rewrite): a
# system or user variable, CURRENT_USER() and the like become the literal DuckDB is given.
Context = Callable[[exp.Expression], exp.Expression]

# Decimal arithmetic without rounding (DECIMAL holds at most 38 digits).
EXACT = decimal.Context(prec=80, traps=[decimal.Inexact, decimal.InvalidOperation])
# Digits DuckDB's DECIMAL holds: a comparison whose common type needs more leaves DECIMAL.
DECIMAL_DIGITS = 38
# Digits before the point of each integer type as DuckDB stores it.
INTEGER_DIGITS = {8: 3, 16: 5, 24: 10, 32: 10, 64: 19}


class Kind(Enum):
    """How DuckDB types a value, which decides what it may be compared or combined with."""

    NUMBER = "number"  # int or Decimal
    DOUBLE = "double"  # float: RAND() and what is computed from it
    TEXT = "text"  # str, compared under the column's collation
    NULL = "null"
    OTHER = "other"  # a value that can be read, tested for NULL and assigned, not compared


@dataclass(frozen=True)
class Operand:
    """A compiled value and its DuckDB typing."""

    value: Value
    kind: Kind
    literal: bool
    digits: tuple[int, int] = (0, 0)  # a number's (digits before the point, scale)
    bounds: tuple[object, object] | None = None  # the range arithmetic on it must stay in
    collation: str | None = None  # a text column's: two columns of two collations are DuckDB's (collation_mix.py)


def literal_operand(node: exp.Expression) -> Operand:
    """An integer, decimal or string literal (a negated number too); floats are DuckDB's."""
    negative = isinstance(node, exp.Neg)
    if negative:
        node = node.this
        if not isinstance(node, exp.Literal) or node.is_string:
            raise Declined
    assert isinstance(node, exp.Literal)
    text: str = node.this
    if node.is_string:
        return Operand(lambda row: text, Kind.TEXT, literal=True)
    whole, _, fraction = text.partition(".")
    if not whole.isdigit() or (fraction and not fraction.isdigit()) or len(whole) + len(fraction) > 18:
        raise Declined  # exponents, hex, or more digits than DuckDB keeps a decimal literal exact in
    number: int | Decimal = Decimal(text) if fraction or text.endswith(".") else int(text)
    if negative:
        number = -number
    return Operand(lambda row: number, Kind.NUMBER, literal=True, digits=(len(whole), len(fraction)))


def binary_literal_operand(value: bytes) -> Operand:
    """A hexadecimal or bit-value literal read as a number (compared with a numeric column:
    a BIT column, an integer; the comparison declines text, as the Translator refuses it)."""
    if len(value) > 8:
        raise Declined
    number = int.from_bytes(value, "big")
    return Operand(lambda row: number, Kind.NUMBER, literal=True, digits=(len(str(number)), 0))


def decimal_digits(column_type: ColumnType) -> tuple[int, int]:
    """(digits before the point, scale) of a DECIMAL column."""
    scale = column_type.scale or 0
    return (column_type.length or 10) - scale, scale


def decimal_bounds(column_type: ColumnType) -> tuple[Decimal, Decimal]:
    """The smallest and largest value a DECIMAL column holds."""
    whole, scale = decimal_digits(column_type)
    high = Decimal(10) ** whole - Decimal(1).scaleb(-scale)
    return (Decimal(0) if column_type.unsigned else -high), high


def both(combine: Callable[[object, object], object], first: Value, second: Value) -> Value:
    """`combine` of two values, NULL if either is; both evaluated first, whatever the first is."""

    def value(row: Values) -> object:
        a, b = first(row), second(row)
        return None if a is None or b is None else combine(a, b)

    return value


def exact_in_double(operand: Operand) -> bool:
    """An integer that DuckDB turns into a DOUBLE exactly (fewer than 16 digits)."""
    return operand.kind is Kind.NUMBER and operand.digits[1] == 0 and operand.digits[0] <= 15
