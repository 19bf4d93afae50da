"""The values of MySQL's temporal column types with a fraction or a range of their own:
DATETIME(fsp) and TIMESTAMP(fsp), TIME(fsp) and YEAR, as a column stores them.

server_sim/types.py delegates here. A value that does not read as the type raises
ValueError (the caller's 1292 / 1265); one outside the type's range raises
OutOfRange (1264, strict mode: the simulator runs strict mode only). Fractional seconds
beyond the column's precision are rounded (MySQL) or truncated (MariaDB), as the flavor's
`Fraction` says (MySQL's TIME_TRUNCATE_FRACTIONAL, MariaDB's TIME_ROUND_FRACTIONAL sql_mode
would swap them: both are refused, sysvars.py).
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from enum import Enum

from sqlglot import exp

from .errors import ErrorCode, SqlError, not_supported

MAX_FSP = 6
# TIME's range, in microseconds: -838:59:59.000000 .. 838:59:59.000000.
TIME_LIMIT = (838 * 3600 + 59 * 60 + 59) * 1_000_000
YEAR_RANGE = (1901, 2155)


class Fraction(Enum):
    """What a server does with fractional-second digits a column has no room for."""

    ROUND = "round"  # MySQL (my_datetime_round)
    TRUNCATE = "truncate"  # MariaDB (without TIME_ROUND_FRACTIONAL)


class OutOfRange(ValueError):
    """A value of the right form outside the type's range: ER_WARN_DATA_OUT_OF_RANGE."""


def _scaled(micro: int, fsp: int, fraction: Fraction) -> int:
    """`micro` microseconds (>= 0) kept to `fsp` digits."""
    unit = 10 ** (MAX_FSP - fsp)
    whole, rest = divmod(micro, unit)
    if fraction is Fraction.ROUND and rest * 2 >= unit:
        whole += 1
    return whole * unit


def _digits_to_micro(digits: str, fraction: Fraction) -> int:
    """A fraction's digits as microseconds, digits past the sixth rounded or dropped."""
    digits = digits or "0"
    micro = int(digits[:MAX_FSP].ljust(MAX_FSP, "0"))
    if len(digits) > MAX_FSP and fraction is Fraction.ROUND and digits[MAX_FSP] >= "5":
        micro += 1
    return micro


# --- DATETIME / TIMESTAMP -----------------------------------------------------------

_DATETIME_TEXT = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d*))?)?$")
_DATETIME_DIGITS = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?(?:\.(\d*))?$")


def datetime_value(value: object, fsp: int, fraction: Fraction) -> dt.datetime:
    """The DATETIME(fsp) a value stores as (rounding may carry into the next second)."""
    if isinstance(value, dt.datetime):
        base, micro = value.replace(tzinfo=None, microsecond=0), value.microsecond
    elif isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    else:
        text = (value.decode() if isinstance(value, bytes) else format(value, "f") if isinstance(value, Decimal) else str(value)).strip()
        match = _DATETIME_TEXT.match(text) or _DATETIME_DIGITS.match(text)
        if match is None:
            raise ValueError(text)
        year, month, day, hour, minute, second, digits = match.groups()
        base = dt.datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
        micro = _digits_to_micro(digits or "", fraction)
    return base + dt.timedelta(microseconds=_scaled(micro, fsp, fraction))


# --- TIME -----------------------------------------------------------------------------

_TIME_TEXT = re.compile(r"^(-)?(?:(\d+) )?(\d+):(\d{1,2})(?::(\d{1,2}))?(?:\.(\d*))?$")
_TIME_DIGITS = re.compile(r"^(-)?(\d+)(?:\.(\d*))?$")


def time_value(value: object, fsp: int, fraction: Fraction) -> dt.timedelta:
    """The TIME(fsp) a value stores as: 'HH:MM:SS[.f]', 'D HH:MM:SS', 'HH:MM',
    [H]HMMSS digits or numbers; beyond +-838:59:59 is OutOfRange."""
    if isinstance(value, dt.timedelta):
        total = value // dt.timedelta(microseconds=1)
        negative, seconds, micro = total < 0, abs(total) // 1_000_000, abs(total) % 1_000_000
    elif isinstance(value, dt.datetime):
        negative, seconds, micro = False, value.hour * 3600 + value.minute * 60 + value.second, value.microsecond
    elif isinstance(value, dt.time):
        negative, seconds, micro = False, value.hour * 3600 + value.minute * 60 + value.second, value.microsecond
    else:
        negative, seconds, micro = _time_parts(value, fraction)
    total = seconds * 1_000_000 + _scaled(micro, fsp, fraction)
    if total > TIME_LIMIT:
        raise OutOfRange(str(value))
    return dt.timedelta(microseconds=-total if negative else total)


def _time_parts(value: object, fraction: Fraction) -> tuple[bool, int, int]:
    if isinstance(value, float):
        value = Decimal(repr(value))
    text = (value.decode() if isinstance(value, bytes) else format(value, "f") if isinstance(value, Decimal) else str(value)).strip()
    match = _TIME_TEXT.match(text)
    if match is not None:
        sign, days, hours, minutes, seconds, digits = match.groups()
        whole = (int(days or 0) * 24 + int(hours)) * 3600 + int(minutes) * 60 + int(seconds or 0)
        if int(minutes) > 59 or int(seconds or 0) > 59:
            raise ValueError(text)
        return bool(sign), whole, _digits_to_micro(digits or "", fraction)
    match = _TIME_DIGITS.match(text)
    if match is None:
        raise ValueError(text)
    sign, digits, fraction_digits = match.groups()
    number = int(digits)
    hours, minutes, seconds = number // 10000, number // 100 % 100, number % 100
    if minutes > 59 or seconds > 59:
        raise ValueError(text)
    return bool(sign), hours * 3600 + minutes * 60 + seconds, _digits_to_micro(fraction_digits or "", fraction)


def time_text(value: dt.timedelta, fsp: int = MAX_FSP) -> str:
    """A TIME as the server prints it: [-]HH:MM:SS[.fraction]."""
    total = value // dt.timedelta(microseconds=1)
    seconds, micro = divmod(abs(total), 1_000_000)
    text = f"{'-' if total < 0 else ''}{seconds // 3600:02}:{seconds // 60 % 60:02}:{seconds % 60:02}"
    return text + (f".{micro:06}"[: fsp + 1] if fsp else "")


# --- YEAR -----------------------------------------------------------------------------


def year_value(value: object) -> int:
    """The YEAR a value stores as: 1901..2155 or 0; two digits 0-69 are 2000-2069 and
    70-99 1970-1999, except the number 0 (not the string '0'), which is 0000."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (dt.date, dt.datetime)):
        value = value.year
    if isinstance(value, (float, Decimal)):
        value = int(Decimal(repr(value) if isinstance(value, float) else value).to_integral_value(rounding="ROUND_HALF_UP"))
    if isinstance(value, int):
        if value == 0:
            return 0
        year = _two_digit(value)
    else:
        text = (value.decode() if isinstance(value, bytes) else str(value)).strip()
        if not re.fullmatch(r"[-+]?\d+", text):
            raise ValueError(text)
        year = int(text)
        if len(text.lstrip("+-")) == 4 and year == 0:
            return 0  # '0000'
        year = _two_digit(year)
    if not (YEAR_RANGE[0] <= year <= YEAR_RANGE[1]):
        raise OutOfRange(str(value))
    return year


def _two_digit(year: int) -> int:
    if 0 <= year <= 69:
        return year + 2000
    if 70 <= year <= 99:
        return year + 1900
    return year


def fsp_of(digits: int, column: str) -> int:
    """A column's declared fractional-second precision, checked (ER_TOO_BIG_PRECISION)."""
    if digits > MAX_FSP:
        raise SqlError(ErrorCode.ER_TOO_BIG_PRECISION, digits, column, MAX_FSP)
    return digits


# --- where a TIME or YEAR column may appear in SQL DuckDB runs ---------------------------

# DuckDB holds TIME as an INTERVAL and YEAR as a SMALLINT: the same values, but not read
# the same from a constant ('100000' is 10:00:00 to MySQL, 100000 seconds to DuckDB; YEAR
# compared with 20 is compared with 2020). A constant both read alike, and plain uses
# (selected, ordered, grouped, compared with a column, IS NULL) run; any other use is refused.
_SAME_TIME_TEXT = re.compile(r"^-?\d{1,3}:\d{2}:\d{2}(\.\d{1,6})?$")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.In, exp.Between)
_PLAIN_PARENTS = (exp.Select, exp.Alias, exp.Ordered, exp.Group, exp.Is, exp.Distinct)


def check_temporal_uses(tree: exp.Expression, families: dict[str, str]) -> None:
    """Refuse (1235) a use of a TIME or YEAR column (`families`: lower-case name ->
    'TIME' or 'YEAR') that DuckDB would evaluate otherwise than the server."""
    if not families:
        return
    for column in tree.find_all(exp.Column):
        family = families.get(column.name.lower())
        if family is None:
            continue
        parent = column.parent
        while isinstance(parent, exp.Paren):
            parent = parent.parent
        if isinstance(parent, _COMPARISONS):
            for other in _operands(parent):
                if other is not column and not _read_alike(other, family, families):
                    raise not_supported(f"comparing {family} column {column.name} with {other.sql(dialect='mysql')}")
        elif not isinstance(parent, _PLAIN_PARENTS):
            raise not_supported(f"{family} column {column.name} in {type(parent).__name__ if parent else 'an expression'} (DuckDB holds it as {'an INTERVAL' if family == 'TIME' else 'a SMALLINT'})")


def _operands(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.In):
        return [node.this, *node.expressions]
    if isinstance(node, exp.Between):
        return [node.this, node.args["low"], node.args["high"]]
    return [node.this, node.expression]


def _read_alike(node: exp.Expression, family: str, families: dict[str, str]) -> bool:
    if isinstance(node, exp.Column):
        return families.get(node.name.lower()) == family
    if isinstance(node, exp.Null):
        return True
    if not isinstance(node, exp.Literal):
        return False
    if family == "TIME":
        return node.is_string and bool(_SAME_TIME_TEXT.match(node.this))
    return bool(re.fullmatch(r"\d{4}", node.this)) and int(node.this) != 0
