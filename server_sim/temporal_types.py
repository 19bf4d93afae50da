"""The values of MySQL's temporal column types with a fraction or a range of their own:
DATETIME(fsp) and TIMESTAMP(fsp), TIME(fsp) and YEAR, as a column stores them.

server_sim/types.py delegates here. A value that does not read as the type raises
ValueError (the caller's 1292 / 1265); one outside the type's range raises OutOfRange
with the flavor's error (strict mode: the simulator runs strict mode only). How the
servers differ is data, `TemporalRules`: MySQL rounds fractional seconds a column has no
room for and ends TIME at 838:59:59.000000; MariaDB truncates them, notes a seventh digit
(1265, not modelled: refused) and ends TIME at 838:59:59.999999 (out of range is 1292
there). MySQL's TIME_TRUNCATE_FRACTIONAL and MariaDB's TIME_ROUND_FRACTIONAL sql_mode would
swap the fraction rule: both are refused (sysvars.py).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import Enum

from sqlglot import exp

from .errors import ErrorCode, SqlError, not_supported

MAX_FSP = 6
# TIME's range in whole seconds: -838:59:59 .. 838:59:59 (the fraction beyond is the flavor's).
TIME_MAX_SECONDS = 838 * 3600 + 59 * 60 + 59
YEAR_RANGE = (1901, 2155)


class Fraction(Enum):
    """What a server does with fractional-second digits a column has no room for."""

    ROUND = "round"  # MySQL (my_datetime_round)
    TRUNCATE = "truncate"  # MariaDB (without TIME_ROUND_FRACTIONAL)


@dataclass(frozen=True)
class TemporalRules:
    """One server's reading of temporal values (a flavor's `temporal`)."""

    fraction: Fraction
    # Microseconds TIME allows past 838:59:59 (MySQL none, MariaDB .999999).
    time_max_fraction: int
    # The strict-mode error of a TIME beyond its range (MySQL 1264, MariaDB 1292).
    time_range_error: ErrorCode
    # A seventh fractional digit: MySQL rounds it silently, MariaDB drops it with Note 1265.
    notes_excess_digits: bool
    # sql_mode's NO_ZERO_DATE ('0000-00-00') and NO_ZERO_IN_DATE (a zero month or day,
    # '2020-00-01'): under them such a date is 1292 (outside strict mode a warning, the zero
    # date stored); without them it is stored. The simulator does not hold the zero date:
    # wherever it would be stored, 1235. The flavor's rules follow its default sql_mode
    # (MySQL's has both, MariaDB's neither); a statement's, its session's (`under_sql_mode`).
    no_zero_date: bool
    no_zero_in_date: bool

    def under_sql_mode(self, modes: frozenset[str]) -> TemporalRules:
        """These rules with the zero-date members of a session's sql_mode."""
        no_zero_date, no_zero_in_date = "NO_ZERO_DATE" in modes, "NO_ZERO_IN_DATE" in modes
        if (no_zero_date, no_zero_in_date) == (self.no_zero_date, self.no_zero_in_date):
            return self
        return replace(self, no_zero_date=no_zero_date, no_zero_in_date=no_zero_in_date)


MYSQL_TEMPORAL = TemporalRules(Fraction.ROUND, 0, ErrorCode.ER_WARN_DATA_OUT_OF_RANGE, False, True, True)
MARIADB_TEMPORAL = TemporalRules(Fraction.TRUNCATE, 999_999, ErrorCode.ER_WRONG_TEMPORAL_VALUE_FOR_FIELD, True, False, False)


class OutOfRange(ValueError):
    """A value of the right form outside the type's range; `code` is the server's error."""

    def __init__(self, text: str, code: ErrorCode = ErrorCode.ER_WARN_DATA_OUT_OF_RANGE) -> None:
        super().__init__(text)
        self.code = code


def _scaled(micro: int, fsp: int, fraction: Fraction) -> int:
    """`micro` microseconds (>= 0) kept to `fsp` digits."""
    unit = 10 ** (MAX_FSP - fsp)
    whole, rest = divmod(micro, unit)
    if fraction is Fraction.ROUND and rest * 2 >= unit:
        whole += 1
    return whole * unit


def _digits_to_micro(digits: str, rules: TemporalRules) -> int:
    """A fraction's digits as microseconds, digits past the sixth rounded (or noted)."""
    digits = digits or "0"
    micro = int(digits[:MAX_FSP].ljust(MAX_FSP, "0"))
    if len(digits) > MAX_FSP and digits[MAX_FSP:].strip("0"):
        if rules.notes_excess_digits:
            raise not_supported("a seventh fractional-second digit (the server drops it with Note 1265)")
        if rules.fraction is Fraction.ROUND and digits[MAX_FSP] >= "5":
            micro += 1
    return micro


def _text_of(value: object) -> str:
    if isinstance(value, float):
        value = Decimal(repr(value))
    return (value.decode() if isinstance(value, bytes) else format(value, "f") if isinstance(value, Decimal) else str(value)).strip()


# --- DATETIME / TIMESTAMP -----------------------------------------------------------

_DATETIME_TEXT = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d*))?)?$")
_DATETIME_DIGITS = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?(?:\.(\d*))?$")


_DATE_PARTS = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?![\d])|^(\d{4})(\d{2})(\d{2})(?!-)")
_ZERO_NUMBER = re.compile(r"^0+(\.0*)?$")


def check_date_parts(value: object, rules: TemporalRules) -> None:
    """A DATE/DATETIME text or number with a zero year, month or day: under NO_ZERO_DATE
    (the zero date) or NO_ZERO_IN_DATE (a zero month or day) 1292 (ValueError here), else
    stored as the server writes it (1235: not modelled). A zero year with a month and day
    is a date no mode forbids, which the catalog's dates cannot hold: 1235."""
    if isinstance(value, (dt.date, dt.datetime)) or value is None:
        return
    text = _text_of(value)
    match = _DATE_PARTS.match(text)
    parts = [int(part) for part in (match.groups() if match else ()) if part is not None]
    if not _ZERO_NUMBER.match(text) and (not parts or all(parts)):
        return
    if _ZERO_NUMBER.match(text) or not any(parts):
        forbidden = rules.no_zero_date
    else:
        forbidden = rules.no_zero_in_date and not all(parts[1:])
    if not forbidden:
        raise not_supported(f"the date {text!r} with a zero part (the zero date)")
    raise ValueError(text)


def datetime_value(value: object, fsp: int, rules: TemporalRules) -> dt.datetime:
    """The DATETIME(fsp) a value stores as (rounding may carry into the next second)."""
    if isinstance(value, dt.datetime):
        base, micro = value.replace(tzinfo=None, microsecond=0), value.microsecond
    elif isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    else:
        text = _text_of(value)
        match = _DATETIME_TEXT.match(text) or _DATETIME_DIGITS.match(text)
        if match is None:
            raise ValueError(text)
        year, month, day, hour, minute, second, digits = match.groups()
        base = dt.datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
        micro = _digits_to_micro(digits or "", rules)
    return base + dt.timedelta(microseconds=_scaled(micro, fsp, rules.fraction))


# --- TIME -----------------------------------------------------------------------------

_TIME_TEXT = re.compile(r"^(-)?(?:(\d+) )?(\d+):(\d{1,2})(?::(\d{1,2}))?(?:\.(\d*))?$")
_TIME_DIGITS = re.compile(r"^(-)?(\d+)(?:\.(\d*))?$")


def time_value(value: object, fsp: int, rules: TemporalRules) -> dt.timedelta:
    """The TIME(fsp) a value stores as: 'HH:MM:SS[.f]', 'D HH:MM:SS', 'HH:MM', [H]HMMSS
    digits or numbers, a datetime's time of day; beyond +-838:59:59 is OutOfRange."""
    if isinstance(value, dt.timedelta):
        total = value // dt.timedelta(microseconds=1)
        negative, seconds, micro = total < 0, abs(total) // 1_000_000, abs(total) % 1_000_000
    elif isinstance(value, (dt.datetime, dt.time)):
        negative, seconds, micro = False, value.hour * 3600 + value.minute * 60 + value.second, value.microsecond
    else:
        negative, seconds, micro = _time_parts(_text_of(value), rules)
    total = seconds * 1_000_000 + _scaled(micro, fsp, rules.fraction)
    if total > TIME_MAX_SECONDS * 1_000_000 + rules.time_max_fraction:
        raise OutOfRange(_text_of(value), rules.time_range_error)
    return dt.timedelta(microseconds=-total if negative else total)


def _time_parts(text: str, rules: TemporalRules) -> tuple[bool, int, int]:
    """(negative, whole seconds, microseconds) of a TIME's text."""
    match = _DATETIME_TEXT.match(text)
    if match is not None and match.group(4) is not None:  # a datetime: its time of day
        _, _, _, hours, minutes, seconds, digits = match.groups()
        return False, int(hours) * 3600 + int(minutes) * 60 + int(seconds), _digits_to_micro(digits or "", rules)
    match = _TIME_TEXT.match(text)
    if match is not None:
        sign, days, hours, minutes, seconds, digits = match.groups()
        if int(minutes) > 59 or int(seconds or 0) > 59:
            raise ValueError(text)
        whole = (int(days or 0) * 24 + int(hours)) * 3600 + int(minutes) * 60 + int(seconds or 0)
        return bool(sign), whole, _digits_to_micro(digits or "", rules)
    match = _TIME_DIGITS.match(text)
    if match is None:
        raise ValueError(text)
    sign, digits, fraction_digits = match.groups()
    number = int(digits)
    hours, minutes, seconds = number // 10000, number // 100 % 100, number % 100
    if minutes > 59 or seconds > 59:
        raise ValueError(text)
    return bool(sign), hours * 3600 + minutes * 60 + seconds, _digits_to_micro(fraction_digits or "", rules)


def time_from_text(text: str) -> dt.timedelta:
    """A TIME as the server prints it ([-]HH:MM:SS[.fraction]), read back."""
    negative, seconds, micro = _time_parts(text, MYSQL_TEMPORAL)
    total = seconds * 1_000_000 + micro
    return dt.timedelta(microseconds=-total if negative else total)


def time_literal_text(value: dt.timedelta) -> str:
    """A TIME as a literal that reads back as it: its fraction only when it has one."""
    return time_text(value, MAX_FSP if value % dt.timedelta(seconds=1) else 0)


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
        text = _text_of(value)
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
_AS_TEXT = (exp.Concat, exp.ConcatWs, exp.DPipe, exp.Cast, exp.TryCast, exp.GroupConcat, exp.Length, exp.Substring, exp.Upper, exp.Lower, exp.Like)
_PLAIN_PARENTS = (exp.Select, exp.Alias, exp.Ordered, exp.Group, exp.Is, exp.Distinct)


def check_temporal_uses(tree: exp.Expression, families: dict[str, str]) -> None:
    """Refuse (1235) a use of a TIME or YEAR column, or of a DATETIME/TIMESTAMP column with
    fractional seconds (`families`: lower-case name -> 'TIME', 'YEAR' or 'FRACTIONAL'),
    that DuckDB would evaluate otherwise than the server."""
    if not families:
        return
    for column in tree.find_all(exp.Column):
        family = families.get(column.name.lower())
        if family is None:
            continue
        parent = column.parent
        while isinstance(parent, exp.Paren):
            parent = parent.parent
        if family == "FRACTIONAL":
            # Read as text, DuckDB drops the trailing zeros of the fraction the server prints
            # to the column's precision ('10:00:00.5' for DATETIME(3)'s '10:00:00.500').
            if isinstance(parent, _AS_TEXT):
                raise not_supported(f"DATETIME/TIMESTAMP column {column.name} with fractional seconds in {type(parent).__name__}")
        elif isinstance(parent, _COMPARISONS):
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


# --- the zero date in comparisons ---------------------------------------------------------

_ZERO_DATE_TEXT = re.compile(r"^0000-00-00(?:[ T]00:00:00(?:\.0*)?)?$")
_ZERO_PART_TEXT = re.compile(r"^\d{4}-(?:00-\d{2}|\d{2}-00)(?:[ T]\d{2}:\d{2}:\d{2}(?:\.\d*)?)?$")
# `column OP zero date` for a column that holds no zero date: its truth, NULL for NULL.
_AGAINST_ZERO = {exp.EQ: False, exp.NEQ: True, exp.GT: True, exp.GTE: True, exp.LT: False, exp.LTE: False}
_MIRRORED = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.EQ: exp.EQ, exp.NEQ: exp.NEQ, exp.NullSafeEQ: exp.NullSafeEQ}
ZERO_DATE_COMPARISONS = tuple(_MIRRORED)


def zero_date_comparison(node: exp.Expression, dated: Callable[[exp.Column], bool], modelled: bool) -> exp.Expression | None:
    """A DATE / DATETIME / TIMESTAMP column compared with the zero date ('0000-00-00'
    [00:00:00]): the simulator stores no zero date, so the column is never equal to it and
    always after it (recorded on MariaDB: `d <> '0000-00-00'` is true, `d > '0000-00-00'`
    too, NULL for NULL, `<=>` false). None: not such a comparison. 1235 where the server's
    answer is not modelled (`modelled` false: MySQL under NO_ZERO_DATE may warn or fail) and
    for a date with a zero month or day, which orders between real dates."""
    operator = type(node)
    left, right = node.this, node.expression
    literal, column = (left, right) if isinstance(left, exp.Literal) else (right, left)
    if not (isinstance(literal, exp.Literal) and literal.is_string and isinstance(column, exp.Column)):
        return None
    text = literal.name.strip()
    zero = bool(_ZERO_DATE_TEXT.match(text))
    if not zero and not _ZERO_PART_TEXT.match(text):
        return None
    if not dated(column):  # a DATE, DATETIME or TIMESTAMP column
        return None
    written = node.sql(dialect="mysql")
    if not zero:
        raise not_supported(f"a comparison with the date {text!r} with a zero part ({written})")
    if not modelled:
        raise not_supported(f"a comparison with the zero date under NO_ZERO_DATE ({written}: the server may warn or fail, 1292)")
    if operator is exp.NullSafeEQ:
        return exp.false()
    if literal is left:
        operator = _MIRRORED[operator]
    truth = exp.true() if _AGAINST_ZERO[operator] else exp.false()
    return exp.Case(ifs=[exp.If(this=exp.Is(this=column.copy(), expression=exp.Null()), true=exp.Null())], default=truth)
