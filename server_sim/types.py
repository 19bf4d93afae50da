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
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from enum import Enum

from sqlglot import exp

from .charsets import MBMAXLEN, charset_of_collation, encode_text, unrepresentable
from .collation import DUCKDB_COLLATION
from .errors import ErrorCode, SqlError, not_supported


class TypeFamily(Enum):
    INTEGER = "integer"
    DECIMAL = "decimal"
    FLOAT = "float"
    STRING = "string"
    BINARY = "binary"
    DATE = "date"
    DATETIME = "datetime"


@dataclass(frozen=True)
class _Base:
    family: TypeFamily
    duckdb: str
    bits: int = 0  # integer width
    max_length: int = 0  # byte limit of TEXT/BLOB
    blob: bool = False  # a BLOB/TEXT column: left out of NOBLOB images


_BASES: dict[str, _Base] = {
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
}

# sqlglot's names for MySQL types, mapped to MySQL's name and signedness.
_FROM_SQLGLOT: dict[exp.DataType.Type, tuple[str, bool]] = {
    exp.DataType.Type.TINYINT: ("TINYINT", False),
    exp.DataType.Type.UTINYINT: ("TINYINT", True),
    exp.DataType.Type.BOOLEAN: ("TINYINT", False),
    exp.DataType.Type.SMALLINT: ("SMALLINT", False),
    exp.DataType.Type.USMALLINT: ("SMALLINT", True),
    exp.DataType.Type.MEDIUMINT: ("MEDIUMINT", False),
    exp.DataType.Type.UMEDIUMINT: ("MEDIUMINT", True),
    exp.DataType.Type.INT: ("INT", False),
    exp.DataType.Type.UINT: ("INT", True),
    exp.DataType.Type.BIGINT: ("BIGINT", False),
    exp.DataType.Type.UBIGINT: ("BIGINT", True),
    exp.DataType.Type.DECIMAL: ("DECIMAL", False),
    exp.DataType.Type.UDECIMAL: ("DECIMAL", True),
    exp.DataType.Type.FLOAT: ("FLOAT", False),
    exp.DataType.Type.DOUBLE: ("DOUBLE", False),
    exp.DataType.Type.CHAR: ("CHAR", False),
    exp.DataType.Type.VARCHAR: ("VARCHAR", False),
    exp.DataType.Type.TINYTEXT: ("TINYTEXT", False),
    exp.DataType.Type.TEXT: ("TEXT", False),
    exp.DataType.Type.MEDIUMTEXT: ("MEDIUMTEXT", False),
    exp.DataType.Type.LONGTEXT: ("LONGTEXT", False),
    exp.DataType.Type.BINARY: ("BINARY", False),
    exp.DataType.Type.VARBINARY: ("VARBINARY", False),
    exp.DataType.Type.TINYBLOB: ("TINYBLOB", False),
    exp.DataType.Type.BLOB: ("BLOB", False),
    exp.DataType.Type.MEDIUMBLOB: ("MEDIUMBLOB", False),
    exp.DataType.Type.LONGBLOB: ("LONGBLOB", False),
    exp.DataType.Type.DATE: ("DATE", False),
    exp.DataType.Type.DATETIME: ("DATETIME", False),
    exp.DataType.Type.TIMESTAMP: ("TIMESTAMP", False),
    exp.DataType.Type.TIMESTAMPTZ: ("TIMESTAMP", False),
}


@dataclass(frozen=True)
class ColumnType:
    """A MySQL column type such as `INT UNSIGNED`, `DECIMAL(10,2)` or `VARCHAR(20)`."""

    name: str
    unsigned: bool = False
    length: int | None = None  # CHAR/VARCHAR/BINARY length, DECIMAL precision
    scale: int | None = None  # DECIMAL scale
    # A text column's collation (its character set with it), from its definition, its
    # table's or its database's default; None: utf8mb4 (a type outside a table definition).
    collation: str | None = None

    @property
    def base(self) -> _Base:
        return _BASES[self.name]

    @property
    def family(self) -> TypeFamily:
        return self.base.family

    @property
    def is_blob(self) -> bool:
        return self.base.blob

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
        if self.family is TypeFamily.DECIMAL:
            text += f"({self.length},{self.scale})"
        elif self.length is not None and self.family in (TypeFamily.STRING, TypeFamily.BINARY):
            text += f"({self.length})"
        return text + (" UNSIGNED" if self.unsigned else "")

    @property
    def duckdb_type(self) -> str:
        base = self.base
        if self.family is TypeFamily.DECIMAL:
            return f"DECIMAL({self.length},{self.scale})"
        if self.family is TypeFamily.STRING:
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
        if family in (TypeFamily.INTEGER,):
            return 0
        if family is TypeFamily.DECIMAL:
            return Decimal(0).quantize(Decimal(1).scaleb(-(self.scale or 0)))
        if family is TypeFamily.FLOAT:
            return 0.0
        if family is TypeFamily.STRING:
            return ""
        if family is TypeFamily.BINARY:
            return b""
        # MySQL's zero date has no DuckDB equivalent; the earliest date stands in for it.
        return dt.date(1, 1, 1) if family is TypeFamily.DATE else dt.datetime(1, 1, 1)

    def coerce(self, value: object, column: str, row: int = 1) -> object:
        """The value MySQL would store for `value` (strict mode), or the error it raises."""
        if value is None:
            return None
        family = self.family
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
            if family is TypeFamily.BINARY:
                data = value if isinstance(value, bytes) else _text(value).encode()
                if self._too_long(len(data)):
                    raise SqlError(ErrorCode.ER_DATA_TOO_LONG, column, row)
                # BINARY(n) is fixed-length: shorter values are padded with 0x00 bytes.
                return data.ljust(self.length or 0, b"\0") if self.name == "BINARY" else data
            return self._coerce_temporal(value)
        except (ValueError, InvalidOperation, TypeError):
            if _NUMERIC_PREFIX.match(_text(value)):
                raise SqlError(ErrorCode.ER_WARN_DATA_TRUNCATED, column, row) from None
            word = "integer" if family is TypeFamily.INTEGER else self.name.lower()
            raise SqlError(ErrorCode.ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, word, _text(value), column, row) from None

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
        text = _text(value)
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
        return text

    def _coerce_temporal(self, value: object) -> dt.date | dt.datetime:
        if self.family is TypeFamily.DATE:
            if isinstance(value, dt.datetime):
                return value.date()
            if isinstance(value, dt.date):
                return value
            return dt.date.fromisoformat(_text(value).strip()[:10])
        if isinstance(value, dt.datetime):
            return value.replace(tzinfo=None, microsecond=0)
        if isinstance(value, dt.date):
            return dt.datetime(value.year, value.month, value.day)
        if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
            return dt.datetime.strptime(str(int(value)), "%Y%m%d%H%M%S")
        return dt.datetime.fromisoformat(_text(value).strip()).replace(microsecond=0)

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
        if family is TypeFamily.FLOAT:
            return float(value)
        return value


# DECIMAL holds up to 65 digits (the simulator's catalog 38): more than Python's default 28.
_DECIMAL_CONTEXT = Context(prec=65)

_NUMERIC_PREFIX = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\S")


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _printable(data: bytes) -> str:
    """The bytes of a value 1366 names, as the server prints them (convert_to_printable):
    at most 6, ASCII as itself, the rest as \\xHH, '...' when cut."""
    text = "".join(chr(byte) if 0x20 <= byte < 0x7F else f"\\x{byte:02X}" for byte in data[:6])
    return text + ("..." if len(data) > 6 else "")


def _number(value: object) -> int | float | Decimal:
    """MySQL's numeric reading of a value: strings are read as numbers, strictly."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float, Decimal)):
        return value
    if isinstance(value, (dt.date, dt.datetime)):
        return int(value.strftime("%Y%m%d%H%M%S" if isinstance(value, dt.datetime) else "%Y%m%d"))
    text = _text(value).strip()
    if not text:
        raise ValueError("empty")
    return Decimal(text)


def column_type_from_sqlglot(kind: exp.DataType) -> ColumnType:
    """The MySQL type a `CREATE TABLE` column definition declares."""
    try:
        name, unsigned = _FROM_SQLGLOT[kind.this]
    except KeyError:
        raise not_supported(f"column type {kind.sql(dialect='mysql')}") from None
    params = [int(param.this.name) for param in kind.expressions if isinstance(param.this, exp.Literal)]
    family = _BASES[name].family
    if kind.this is exp.DataType.Type.BOOLEAN:
        return ColumnType("TINYINT")
    if family is TypeFamily.DECIMAL:
        precision = params[0] if params else 10
        scale = params[1] if len(params) > 1 else 0
        if precision > 38:
            raise not_supported(f"DECIMAL precision {precision} (the simulator stores at most 38 digits)")
        return ColumnType(name, unsigned, precision, scale)
    if name in ("CHAR", "BINARY"):
        return ColumnType(name, length=params[0] if params else 1)
    if name in ("VARCHAR", "VARBINARY"):
        if not params:
            raise SqlError(ErrorCode.ER_PARSE_ERROR, f"{name} needs a length")
        return ColumnType(name, length=params[0])
    return ColumnType(name, unsigned)
