"""MySQL column types: how values are checked, stored in DuckDB and carried in events.

Storage uses the closest DuckDB type; MySQL's own rules (strict-mode range checks,
rounding, string lengths, case-insensitive collation) are applied here, before a value
reaches DuckDB, so both simulated servers store exactly what MySQL would.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from enum import Enum


from . import enum_set
from .bit_type import BinaryLiteral, client_bytes, coerce_bit
from .charsets import MBMAXLEN, charset_of_collation, decode_text, encode_text, unrepresentable
from .collation import DUCKDB_COLLATION, compares_exactly, pads_spaces
from . import temporal_types as temporal
from .errors import ErrorCode, SqlError, not_supported
from .json_type import coerce_mysql_json, document_of_text


class TypeFamily(Enum):
    INTEGER = "integer"
    DECIMAL = "decimal"
    FLOAT = "float"
    STRING = "string"
    BINARY = "binary"
    DATE = "date"
    DATETIME = "datetime"
    TIME = "time"
    YEAR = "year"
    ENUM = "enum"  # one member of a list (server_sim/enum_set.py)
    SET = "set"  # any members of a list
    BIT = "bit"  # server_sim/bit_type.py
    JSON = "json"  # MySQL's own JSON type (server_sim/json_type.py)


@dataclass(frozen=True)
class _Base:
    family: TypeFamily
    duckdb: str
    bits: int = 0  # integer width
    max_length: int = 0  # byte limit of TEXT/BLOB
    blob: bool = False  # a BLOB/TEXT column: left out of NOBLOB images


# The catalog's types by MySQL name: family, DuckDB storage, width.
BASES: dict[str, _Base] = {
    "TINYINT": _Base(TypeFamily.INTEGER, "TINYINT", bits=8),
    "SMALLINT": _Base(TypeFamily.INTEGER, "SMALLINT", bits=16),
    "MEDIUMINT": _Base(TypeFamily.INTEGER, "INTEGER", bits=24),
    "INT": _Base(TypeFamily.INTEGER, "INTEGER", bits=32),
    "BIGINT": _Base(TypeFamily.INTEGER, "BIGINT", bits=64),
    "DECIMAL": _Base(TypeFamily.DECIMAL, "DECIMAL"),
    "FLOAT": _Base(TypeFamily.FLOAT, "REAL"),
    "DOUBLE": _Base(TypeFamily.FLOAT, "DOUBLE"),
    "CHAR": _Base(TypeFamily.STRING, "VARCHAR"),
    "VARCHAR": _Base(TypeFamily.STRING, "VARCHAR"),
    "TINYTEXT": _Base(TypeFamily.STRING, "VARCHAR", max_length=255, blob=True),
    "TEXT": _Base(TypeFamily.STRING, "VARCHAR", max_length=65535, blob=True),
    "MEDIUMTEXT": _Base(TypeFamily.STRING, "VARCHAR", max_length=16777215, blob=True),
    "LONGTEXT": _Base(TypeFamily.STRING, "VARCHAR", max_length=4294967295, blob=True),
    "BINARY": _Base(TypeFamily.BINARY, "BLOB"),
    "VARBINARY": _Base(TypeFamily.BINARY, "BLOB"),
    "TINYBLOB": _Base(TypeFamily.BINARY, "BLOB", max_length=255, blob=True),
    "BLOB": _Base(TypeFamily.BINARY, "BLOB", max_length=65535, blob=True),
    "MEDIUMBLOB": _Base(TypeFamily.BINARY, "BLOB", max_length=16777215, blob=True),
    "LONGBLOB": _Base(TypeFamily.BINARY, "BLOB", max_length=4294967295, blob=True),
    "DATE": _Base(TypeFamily.DATE, "DATE"),
    "DATETIME": _Base(TypeFamily.DATETIME, "TIMESTAMP"),
    "TIMESTAMP": _Base(TypeFamily.DATETIME, "TIMESTAMP"),
    # TIME spans -838:59:59..838:59:59, beyond DuckDB's TIME: an INTERVAL holds it.
    "TIME": _Base(TypeFamily.TIME, "INTERVAL"),
    "YEAR": _Base(TypeFamily.YEAR, "SMALLINT"),
    "ENUM": _Base(TypeFamily.ENUM, "VARCHAR"),
    "SET": _Base(TypeFamily.SET, "VARCHAR"),
    "BIT": _Base(TypeFamily.BIT, "UBIGINT"),
    "JSON": _Base(TypeFamily.JSON, "VARCHAR", max_length=4294967295, blob=True),
}

@dataclass(frozen=True)
class ColumnType:
    """A MySQL column type such as `INT UNSIGNED`, `DECIMAL(10,2)` or `VARCHAR(20)`."""

    name: str
    unsigned: bool = False
    length: int | None = None  # CHAR/VARCHAR/BINARY length, DECIMAL precision
    scale: int | None = None  # DECIMAL scale; TIME/DATETIME/TIMESTAMP fractional-second digits (fsp)
    members: tuple[str, ...] = ()  # ENUM / SET member list
    # MariaDB's JSON: a LONGTEXT with CHECK (json_valid(c)) (server_sim/json_type.py).
    json_check: bool = False
    # A text column's collation (its character set with it), from its definition, its
    # table's or its database's default; None: utf8mb4 (a type outside a table definition).
    collation: str | None = None

    @property
    def base(self) -> _Base:
        return BASES[self.name]

    @property
    def family(self) -> TypeFamily:
        return self.base.family

    @property
    def is_blob(self) -> bool:
        return self.base.blob

    @property
    def compares_exactly(self) -> bool:
        """A text column under a _bin collation: compared and ordered by code point."""
        return self.family is TypeFamily.STRING and compares_exactly(self.collation)

    @property
    def is_enum_or_set(self) -> bool:
        return self.family in (TypeFamily.ENUM, TypeFamily.SET)

    @property
    def charset(self) -> str:
        """The character set of a text column's values (binary for binary strings)."""
        return "binary" if self.family is TypeFamily.BINARY else charset_of_collation(self.collation)

    @property
    def byte_length(self) -> int:
        """A CHAR/VARCHAR/BINARY/VARBINARY column's length in bytes, as the binlog carries it
        and a replica compares it: characters times the charset's bytes per character."""
        return (self.length or 0) * MBMAXLEN[self.charset]

    @property
    def is_integer(self) -> bool:
        return self.family is TypeFamily.INTEGER

    @property
    def sql(self) -> str:
        """The type as MySQL prints it."""
        text = self.name
        if self.is_enum_or_set:
            return enum_set.type_sql(self.name, self.members)
        if self.family is TypeFamily.DECIMAL:
            text += f"({self.length},{self.scale})"
        elif self.length is not None and self.family in (TypeFamily.STRING, TypeFamily.BINARY, TypeFamily.BIT):
            text += f"({self.length})"
        elif self.scale and self.family in FRACTIONAL:
            text += f"({self.scale})"
        return text + (" UNSIGNED" if self.unsigned else "")

    @property
    def duckdb_type(self) -> str:
        base = self.base
        if self.family is TypeFamily.DECIMAL:
            return f"DECIMAL({self.length},{self.scale})"
        if self.family in (TypeFamily.STRING, TypeFamily.ENUM, TypeFamily.SET) and not self.json_check and not self.compares_exactly:
            # The servers' default collations ignore case and accents (server_sim/collation.py).
            return f"VARCHAR COLLATE {DUCKDB_COLLATION}"
        if self.is_integer and self.unsigned:
            return {8: "UTINYINT", 16: "USMALLINT", 24: "UINTEGER", 32: "UINTEGER", 64: "UBIGINT"}[base.bits]
        return base.duckdb

    def integer_range(self) -> tuple[int, int]:
        bits = self.base.bits
        if self.unsigned:
            return 0, 2**bits - 1
        return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def implicit_default(self) -> object:
        """The value MySQL stores in a NOT NULL column that was given none."""
        family = self.family
        if family in (TypeFamily.INTEGER, TypeFamily.BIT):
            return 0
        if family is TypeFamily.JSON:
            return "null"
        if family is TypeFamily.DECIMAL:
            return Decimal(0).quantize(Decimal(1).scaleb(-(self.scale or 0)))
        if family is TypeFamily.FLOAT:
            return 0.0
        if family is TypeFamily.STRING or family is TypeFamily.SET:
            return ""
        if family is TypeFamily.ENUM:
            return self.members[0] if self.members else ""
        if family is TypeFamily.BINARY:
            return b""
        if family is TypeFamily.TIME:
            return dt.timedelta(0)
        if family is TypeFamily.YEAR:
            return 0
        # MySQL's zero date has no DuckDB equivalent; the earliest date stands in for it.
        return dt.date(1, 1, 1) if family is TypeFamily.DATE else dt.datetime(1, 1, 1)

    def coerce(self, value: object, column: str, row: int = 1, temporal_rules: temporal.TemporalRules | None = None) -> object:
        """The value MySQL would store for `value` (strict mode), or the error it raises.
        `temporal_rules` are the server's reading of temporal values (its fractional
        seconds, TIME's range); without them, a value the flavors store differently is refused."""
        if value is None:
            return None
        family = self.family
        if _fraction_lost(value) and family not in (TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME):
            # Its number or text depends on its column's precision, which the value has lost.
            raise not_supported(f"a {'TIME' if isinstance(value, dt.timedelta) else 'DATETIME with fractional seconds'} value stored into a {self.sql} column")
        if self.is_enum_or_set:
            return enum_set.coerce(self.name, self.members, value, column, row)[0]
        try:
            if family is TypeFamily.INTEGER:
                return self._coerce_integer(value, column, row)
            if family is TypeFamily.DECIMAL:
                return self._coerce_decimal(value, column, row)
            if family is TypeFamily.FLOAT:
                number = float(_number(value))
                if math.isinf(number) or math.isnan(number):
                    raise SqlError(ErrorCode.ER_WARN_DATA_OUT_OF_RANGE, column, row)
                # FLOAT is single precision: store what a 4-byte float holds.
                return struct.unpack("f", struct.pack("f", number))[0] if self.name == "FLOAT" else number
            if family is TypeFamily.STRING:
                return self._coerce_string(value, column, row)
            if family is TypeFamily.BIT:
                return coerce_bit(value, self.length or 1, column, row)
            if family is TypeFamily.JSON:
                return coerce_mysql_json(value, column)
            if family is TypeFamily.BINARY:
                data = value if isinstance(value, bytes) else value_text(value).encode()
                if self._too_long(len(data)):
                    raise SqlError(ErrorCode.ER_DATA_TOO_LONG, column, row)
                # BINARY(n) is fixed-length: shorter values are padded with 0x00 bytes.
                return data.ljust(self.length or 0, b"\0") if self.name == "BINARY" else data
            if family in (TypeFamily.DATE, TypeFamily.DATETIME):
                temporal.check_date_parts(value, temporal_rules or temporal.MARIADB_TEMPORAL)
            if family in FRACTIONAL or family is TypeFamily.YEAR:
                return self._coerce_fractional(value, temporal_rules)
            return self._coerce_temporal(value)
        except temporal.OutOfRange as error:
            if error.code is ErrorCode.ER_WARN_DATA_OUT_OF_RANGE:
                raise SqlError(error.code, column, row) from None
            raise SqlError(error.code, self.name.lower(), str(error), column, row) from None
        except (ValueError, InvalidOperation, TypeError):
            if family in FRACTIONAL or family is TypeFamily.DATE:  # a temporal value: 1292
                word = "datetime" if family is TypeFamily.DATETIME else self.name.lower()
                raise SqlError(ErrorCode.ER_WRONG_TEMPORAL_VALUE_FOR_FIELD, word, value_text(value), column, row) from None
            if _NUMERIC_PREFIX.match(value_text(value)):
                raise SqlError(ErrorCode.ER_WARN_DATA_TRUNCATED, column, row) from None
            word = "integer" if family in (TypeFamily.INTEGER, TypeFamily.YEAR) else self.name.lower()
            raise SqlError(ErrorCode.ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, word, value_text(value), column, row) from None

    def event_value(self, value: object) -> object:
        """The value as row events carry it: an ENUM's index, a SET's bitmask, a MySQL JSON
        column's document (its binary form); others as stored."""
        if value is None:
            return value
        if self.is_enum_or_set:
            return enum_set.number_of(self.name, self.members, str(value))
        if self.family is TypeFamily.JSON:
            return document_of_text(str(value))
        return value

    def _too_long(self, length: int) -> bool:
        limit = self.length if self.length is not None else self.base.max_length
        return bool(limit) and length > limit

    def _coerce_integer(self, value: object, column: str, row: int) -> int:
        number = _number(value)
        if isinstance(number, Decimal):
            number = int(number.to_integral_value(rounding=ROUND_HALF_UP))
        elif isinstance(number, float):
            number = int(Decimal(repr(number)).to_integral_value(rounding=ROUND_HALF_UP))
        low, high = self.integer_range()
        if not low <= number <= high:
            raise SqlError(ErrorCode.ER_WARN_DATA_OUT_OF_RANGE, column, row)
        return number

    def _coerce_decimal(self, value: object, column: str, row: int) -> Decimal:
        number = _number(value)
        decimal = number if isinstance(number, Decimal) else Decimal(repr(number) if isinstance(number, float) else number)
        scale = self.scale or 0
        decimal = decimal.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=_DECIMAL_CONTEXT)
        limit = Decimal(10) ** ((self.length or 10) - scale)
        if abs(decimal) >= limit or (self.unsigned and decimal < 0):
            raise SqlError(ErrorCode.ER_WARN_DATA_OUT_OF_RANGE, column, row)
        return decimal

    def _coerce_string(self, value: object, column: str, row: int) -> str:
        if isinstance(value, bytes):  # a binary string: its bytes are read in the column's charset
            if self.charset == "ascii" and not value.isascii():
                raise not_supported(f"a binary string with a byte above 0x7F stored into the ascii column '{column}' (MariaDB stores '?' for it, quietly; MySQL's answer is not recorded)")
            try:
                text = decode_text(value, self.charset)
            except UnicodeDecodeError as error:
                raise SqlError(ErrorCode.ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, "string", _printable(value[error.start :]), column, row) from None
        else:
            text = value_text(value)
        bad = unrepresentable(text, self.charset)
        if bad is not None:
            raise SqlError(ErrorCode.ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, "string", _printable(text[bad:].encode()), column, row)
        if self.name == "CHAR":
            text = text.rstrip(" ")  # CHAR drops trailing spaces on retrieval
        limit_in_bytes = self.length is None
        if not limit_in_bytes and len(text) > self.length and not text[: self.length].endswith(" ") and text[self.length :].strip(" ") == "":
            text = text[: self.length]  # excess trailing spaces are dropped, in every sql_mode
        if self._too_long(len(encode_text(text, self.charset)) if limit_in_bytes else len(text)):
            raise SqlError(ErrorCode.ER_DATA_TOO_LONG, column, row)
        if text.endswith(" ") and pads_spaces(self.collation):
            raise not_supported(f"a value with trailing spaces stored into the column '{column}' (its collation {self.collation} compares text as if they were not there)")
        return text

    def _coerce_fractional(self, value: object, rules: temporal.TemporalRules | None) -> object:
        if self.family is TypeFamily.YEAR:
            return temporal.year_value(value)
        read = temporal.time_value if self.family is TypeFamily.TIME else temporal.datetime_value
        if rules is not None:
            return read(value, self.scale or 0, rules)
        readings = [_reading(read, value, self.scale or 0, each) for each in (temporal.MYSQL_TEMPORAL, temporal.MARIADB_TEMPORAL)]
        if readings[0] != readings[1]:
            raise not_supported(f"{self.sql} value {value_text(value)!r} here (MySQL and MariaDB store it differently)")
        return read(value, self.scale or 0, temporal.MYSQL_TEMPORAL)

    def _coerce_temporal(self, value: object) -> dt.date | dt.datetime:
        if self.family is TypeFamily.DATE:
            if isinstance(value, dt.datetime):
                return value.date()
            if isinstance(value, dt.date):
                return value
            return dt.date.fromisoformat(value_text(value).strip()[:10])
        if isinstance(value, dt.datetime):
            return value.replace(tzinfo=None, microsecond=0)
        if isinstance(value, dt.date):
            return dt.datetime(value.year, value.month, value.day)
        if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
            return dt.datetime.strptime(str(int(value)), "%Y%m%d%H%M%S")
        return dt.datetime.fromisoformat(value_text(value).strip()).replace(microsecond=0)

    def client_value(self, value: object) -> object:
        """The value as a client reads the column: a BIT column's bytes, the rest as stored."""
        if value is not None and self.family is TypeFamily.BIT:
            return client_bytes(int(value), self.length or 1)  # type: ignore[call-overload]
        return value

    def to_json(self, value: object) -> object:
        """The value as the saved catalog holds it (a column default): exact, as JSON."""
        if value is None:
            return None
        family = self.family
        if family is TypeFamily.DECIMAL:
            return str(value)
        if family is TypeFamily.BINARY:
            return bytes(value).hex()
        if family in (TypeFamily.DATE, TypeFamily.DATETIME):
            return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
        if family is TypeFamily.TIME:
            return value // dt.timedelta(microseconds=1)
        return value

    def from_json(self, value: object) -> object:
        if value is None:
            return None
        family = self.family
        if family is TypeFamily.DECIMAL:
            return Decimal(str(value))
        if family is TypeFamily.BINARY:
            return bytes.fromhex(str(value))
        if family is TypeFamily.DATE:
            return dt.date.fromisoformat(str(value))
        if family is TypeFamily.DATETIME:
            return dt.datetime.fromisoformat(str(value))
        if family is TypeFamily.TIME:
            return dt.timedelta(microseconds=int(value))
        if family is TypeFamily.FLOAT:
            return float(value)
        return value


# The families whose columns have fractional seconds.
FRACTIONAL = frozenset({TypeFamily.DATETIME, TypeFamily.TIME})

# DECIMAL holds up to 65 digits (the simulator's catalog 38): more than Python's default 28.
_DECIMAL_CONTEXT = Context(prec=65)

_NUMERIC_PREFIX = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\S")


def value_text(value: object) -> str:
    """A Python value as the text the server reads it as (bytes decoded, TIME as
    838:59:59, booleans as 1 and 0)."""
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return temporal.time_text(value)
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _reading(read: Callable[[object, int, temporal.TemporalRules], object], value: object, fsp: int, rules: temporal.TemporalRules) -> object:
    """What one server makes of a temporal value: the value, or its error's kind."""
    try:
        return read(value, fsp, rules)
    except temporal.OutOfRange as error:
        return error.code
    except (ValueError, SqlError) as error:
        return type(error)


def _fraction_lost(value: object) -> bool:
    """A TIME value, or a datetime with fractional seconds: its number or text needs the
    precision of the column it came from."""
    return isinstance(value, dt.timedelta) or isinstance(value, dt.datetime) and bool(value.microsecond)


def _printable(data: bytes) -> str:
    """The bytes of a value 1366 names, as the server prints them (convert_to_printable):
    at most 6, ASCII as itself, the rest as \\xHH, '...' when cut."""
    text = "".join(chr(byte) if 0x20 <= byte < 0x7F else f"\\x{byte:02X}" for byte in data[:6])
    return text + ("..." if len(data) > 6 else "")


def _number(value: object) -> int | float | Decimal:
    """MySQL's numeric reading of a value: strings are read as numbers, strictly."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, BinaryLiteral):
        return value.number
    if isinstance(value, (int, float, Decimal)):
        return value
    if isinstance(value, (dt.date, dt.datetime)):
        return int(value.strftime("%Y%m%d%H%M%S" if isinstance(value, dt.datetime) else "%Y%m%d"))
    text = value_text(value).strip()
    if not text:
        raise ValueError("empty")
    return Decimal(text)


# MariaDB's JSON as the catalog holds it (Flavor.json_column_is_text).
MARIADB_JSON = ColumnType("LONGTEXT", json_check=True, collation="utf8mb4_bin")


def flavor_type(column_type: ColumnType, json_column_is_text: bool) -> ColumnType:
    """The type a column declared as `column_type` has on the flavor's server."""
    return MARIADB_JSON if json_column_is_text and column_type.family is TypeFamily.JSON else column_type


def temporal_family(column_type: ColumnType) -> str | None:
    """How temporal_types.check_temporal_uses guards a column of this type in SQL DuckDB
    runs: 'TIME', 'YEAR', 'FRACTIONAL' (DATETIME/TIMESTAMP with fsp), or None."""
    if column_type.family in (TypeFamily.TIME, TypeFamily.YEAR):
        return column_type.name
    return "FRACTIONAL" if column_type.family is TypeFamily.DATETIME and column_type.scale else None
