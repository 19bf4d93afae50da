"""The value a statement that is not strict stores when its column cannot hold what it was
given, and the warning it raises instead of the strict-mode error.

A statement is not strict under a sql_mode without STRICT_TRANS_TABLES / STRICT_ALL_TABLES,
under IGNORE, and (STRICT_TRANS_TABLES) from the second row a non-transactional table
takes: the server's Field::store then adjusts the value and warns (recorded on MariaDB
10.11, scenarios/oracle/non-strict-sql-mode.yaml; MySQL 8.0's sql/field.cc the same).
An integer, DECIMAL or TIME is clipped to its range (1264), a YEAR out of range is 0
(1264), a BIT all bits set (1264; MySQL 1406 under a strict sql_mode); text is cut to the column's length (1265; 1406 when the
sql_mode is strict and only the row's place made it a warning, Field_longstr's
abort_on_warning); non-numeric text is 0 (1366) and text with a numeric prefix that
prefix (1265). A bad DATE/DATETIME/TIMESTAMP stores the zero date, which the simulator
cannot hold: refused (1235). A MySQL JSON column's invalid document is an error in every
sql_mode.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from . import enum_set
from . import temporal_types as temporal
from .bit_type import BinaryLiteral
from .errors import ErrorCode, SqlError, not_supported
from .types import ColumnType, TypeFamily

_PREFIX = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_OUT_OF_RANGE = ErrorCode.ER_WARN_DATA_OUT_OF_RANGE.code
_WRONG_VALUE = ErrorCode.ER_TRUNCATED_WRONG_VALUE_FOR_FIELD.code
_TRUNCATED = ErrorCode.ER_WARN_DATA_TRUNCATED.code
_TOO_LONG = ErrorCode.ER_DATA_TOO_LONG.code
# The families whose implicit default (NULL into NOT NULL, a missing column) the model stores.
_IMPLICIT_DEFAULTS = frozenset(
    {TypeFamily.INTEGER, TypeFamily.DECIMAL, TypeFamily.FLOAT, TypeFamily.STRING, TypeFamily.BINARY, TypeFamily.BIT, TypeFamily.TIME, TypeFamily.YEAR, TypeFamily.SET}
)


def coerce_leniently(
    column_type: ColumnType,
    value: object,
    column: str,
    row: int = 1,
    rules: temporal.TemporalRules | None = None,
    strict_mode: bool = False,
    bit_too_long: bool = False,
) -> tuple[object, SqlError | None]:
    """The value a statement that is not strict stores, and the warning it raises (None
    when the value fits). `strict_mode`: the sql_mode is strict (not IGNORE), only the
    row's place in a non-transactional table made the error a warning; `bit_too_long`: a
    BIT with too many bits warns 1406, not 1264 (the flavor's, under a strict sql_mode)."""
    if value is not None and column_type.is_enum_or_set:
        return enum_set.coerce(column_type.name, column_type.members, value, column, row, lenient=True)
    try:
        return column_type.coerce(value, column, row, rules), None
    except SqlError as error:
        return _adjusted(column_type, value, error, column, row, strict_mode, bit_too_long)


def implicit_default(column_type: ColumnType, column: str) -> object:
    """The implicit default a NOT NULL column takes for NULL or for no value in a statement
    that is not strict; the zero date (and an ENUM's or JSON's) is not modelled: 1235."""
    if column_type.family not in _IMPLICIT_DEFAULTS:
        raise not_supported(f"the implicit default of the {column_type.sql} column '{column}' stored by a statement that is not strict")
    return column_type.implicit_default()


def _adjusted(
    column_type: ColumnType, value: object, error: SqlError, column: str, row: int, strict_mode: bool, bit_too_long: bool
) -> tuple[object, SqlError]:
    family, code = column_type.family, error.code
    if family in (TypeFamily.INTEGER, TypeFamily.DECIMAL) and code in (_OUT_OF_RANGE, _WRONG_VALUE, _TRUNCATED):
        return _clipped_number(column_type, value, error, column, row)
    if family is TypeFamily.FLOAT and code in (_WRONG_VALUE, _TRUNCATED):
        return float(_prefix(value)), error
    if family is TypeFamily.STRING and code == _TOO_LONG:
        return _cut_text(column_type, str(value)), error if strict_mode else SqlError(ErrorCode.ER_WARN_DATA_TRUNCATED, column, row)
    if family is TypeFamily.BINARY and code == _TOO_LONG:
        data = (value if isinstance(value, bytes) else str(value).encode())[: column_type.length]
        stored = data.ljust(column_type.length or 0, b"\0") if column_type.name == "BINARY" else data
        return stored, error if strict_mode else SqlError(ErrorCode.ER_WARN_DATA_TRUNCATED, column, row)
    if family is TypeFamily.BIT and code == _TOO_LONG:
        return 2 ** (column_type.length or 1) - 1, error if bit_too_long else SqlError(ErrorCode.ER_WARN_DATA_OUT_OF_RANGE, column, row)
    if family is TypeFamily.YEAR and code in (_OUT_OF_RANGE, _WRONG_VALUE):
        return 0, error
    if family is TypeFamily.TIME and code == _OUT_OF_RANGE:
        return _time_limit(value), error
    if family is TypeFamily.TIME and code == ErrorCode.ER_WRONG_TEMPORAL_VALUE_FOR_FIELD.code and isinstance(value, str) and _time_beyond_range(value):
        return _time_limit(value), SqlError(ErrorCode.ER_WARN_DATA_OUT_OF_RANGE, column, row)  # MariaDB: 1292 in strict mode, 1264 here
    raise not_supported(f"the value a statement that is not strict stores for {value!r} in the {column_type.sql} column '{column}' (strictly: {error.code} {error.message})")


def _clipped_number(column_type: ColumnType, value: object, error: SqlError, column: str, row: int) -> tuple[object, SqlError]:
    """An integer or DECIMAL given text read as its numeric prefix (0 without one), clipped
    to the type's range; out of range is the one warning then (Field_num::get_int)."""
    number = _prefix(value) if error.code != _OUT_OF_RANGE else _exact(value)
    if column_type.family is TypeFamily.INTEGER:
        low, high = (Decimal(bound) for bound in column_type.integer_range())
        number = number.to_integral_value(rounding=ROUND_HALF_UP)
    else:
        scale = column_type.scale or 0
        high = Decimal(10) ** ((column_type.length or 10) - scale) - Decimal(1).scaleb(-scale)
        low = Decimal(0) if column_type.unsigned else -high
        number = number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    if not low <= number <= high:
        error = SqlError(ErrorCode.ER_WARN_DATA_OUT_OF_RANGE, column, row)
        number = low if number < low else high
    return (int(number) if column_type.family is TypeFamily.INTEGER else number), error


def _exact(value: object) -> Decimal:
    """A number as Decimal (a value that read as a number without trouble)."""
    if isinstance(value, BinaryLiteral):
        return Decimal(value.number)
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    try:
        return Decimal(str(value).strip())
    except InvalidOperation:
        return _prefix(value)


def _prefix(value: object) -> Decimal:
    """The number text starts with, 0 when it has none."""
    if not isinstance(value, str):
        return _exact(value)
    match = _PREFIX.match(value)
    return Decimal(match.group(0).strip()) if match else Decimal(0)


def _cut_text(column_type: ColumnType, text: str) -> str:
    """Text cut to the column's characters (or bytes, for a type limited in bytes)."""
    if column_type.length is not None:
        text = text[: column_type.length]
    else:
        text = text.encode()[: column_type.base.max_length].decode(errors="ignore")
    return text.rstrip(" ") if column_type.name == "CHAR" else text


def _time_limit(value: object) -> dt.timedelta:
    """TIME's limit on the value's side: 838:59:59 or -838:59:59."""
    limit = dt.timedelta(seconds=temporal.TIME_MAX_SECONDS)
    return -limit if str(value).strip().startswith("-") else limit


def _time_beyond_range(text: str) -> bool:
    """A TIME text whose hours (or days) pass 838:59:59, which MariaDB reads but cannot hold."""
    match = re.match(r"^\s*-?(?:(\d+) )?(\d+):\d{1,2}(?::\d{1,2})?(?:\.\d*)?\s*$", text)
    return bool(match) and int(match.group(1) or 0) * 24 + int(match.group(2)) > 838
