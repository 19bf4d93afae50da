"""MySQL's bit operators and base conversion, written once in Python (native.py runs
them on either evaluator): operands are 64-bit unsigned integers (a negative one is its
two's complement, a decimal one rounded), as the server computes them.
"""

from __future__ import annotations

from sqlglot import exp

from .library import SqlFunction
from .native import HUGE, native

_BITS = 64
_MASK = (1 << _BITS) - 1


def unsigned(number: int) -> int:
    """A value as the server's 64-bit unsigned operand: clamped to the signed or unsigned
    range first, then its two's complement."""
    return min(max(number, -(1 << 63)), _MASK) & _MASK


def shift_left(number: int, count: int) -> int:
    return (unsigned(number) << count) & _MASK if 0 <= count < _BITS else 0


def shift_right(number: int, count: int) -> int:
    return unsigned(number) >> count if 0 <= count < _BITS else 0


_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def conv(text: str, source: int, target: int) -> str | None:
    """CONV(n, from, to): the leading digits of n in base |from| (a negative base: n is
    signed), written in base |to| (a negative base: as a signed number); NULL for a base
    outside 2..36."""
    if not (2 <= abs(source) <= 36 and 2 <= abs(target) <= 36):
        return None
    digits = text.strip().upper()
    negative = digits.startswith("-")
    digits = digits.lstrip("+-")
    value = 0
    for digit in digits:
        place = _DIGITS.find(digit)
        if place < 0 or place >= abs(source):
            break
        value = value * abs(source) + place
    if source < 0:
        value = min(value, (1 << 63) - 1 + negative)
        value = -value if negative else value
    else:
        value = min(value, _MASK)
        value = -value if negative else value
    if target < 0 and value < 0:
        return "-" + _written(-value, -target)
    return _written(value & _MASK if value < 0 else value, abs(target))


def _written(value: int, base: int) -> str:
    out = ""
    while True:
        value, digit = divmod(value, base)
        out = _DIGITS[digit] + out
        if not value:
            return out


def _two(node: exp.Expression) -> list[exp.Expression]:
    return [node.this, node.expression]


BITS: tuple[SqlFunction, ...] = (
    native("<<", shift_left, [HUGE, HUGE], "UBIGINT", nodes=(exp.BitwiseLeftShift,), arguments=_two, exposed=False),
    native(">>", shift_right, [HUGE, HUGE], "UBIGINT", nodes=(exp.BitwiseRightShift,), arguments=_two, exposed=False),
    native("~", lambda number: ~unsigned(number) & _MASK, [HUGE], "UBIGINT", nodes=(exp.BitwiseNot,), arguments=lambda node: [node.this], exposed=False),
    native("&", lambda a, b: unsigned(a) & unsigned(b), [HUGE, HUGE], "UBIGINT", nodes=(exp.BitwiseAnd,), arguments=_two, exposed=False),
    native("|", lambda a, b: unsigned(a) | unsigned(b), [HUGE, HUGE], "UBIGINT", nodes=(exp.BitwiseOr,), arguments=_two, exposed=False),
    native("^", lambda a, b: unsigned(a) ^ unsigned(b), [HUGE, HUGE], "UBIGINT", nodes=(exp.BitwiseXor,), arguments=_two, exposed=False),
    native("CONV", conv, ["VARCHAR", "BIGINT", "BIGINT"], "VARCHAR"),
    native("BIT_COUNT", lambda number: bin(unsigned(number)).count("1"), [HUGE], "BIGINT", nodes=(exp.BitwiseCount,), arguments=lambda node: [node.this]),
)
