"""Column types as a Table_map event carries them: the type code, its metadata, and the
SQL type shown for them; from the catalog's ColumnType when the master writes, and back
to a ColumnType when a slave compares the master's column with its own.

What the event does not carry (signedness without SIGNEDNESS metadata, whether a string
is text or binary without a charset) is taken from the slave's own column, as a real
replica does (table_def::compatible_with compares byte lengths and type codes).
"""

from __future__ import annotations

from functools import lru_cache

from server_sim.charsets import COLLATION_NAMES, MBMAXLEN, charset_of_collation, collation_id
from server_sim.enum_set import pack_length
from server_sim.types import ColumnType, TypeFamily

from ..events import ColumnInfo

MYSQL_TYPE_DECIMAL = 0
MYSQL_TYPE_TINY = 1
MYSQL_TYPE_SHORT = 2
MYSQL_TYPE_LONG = 3
MYSQL_TYPE_FLOAT = 4
MYSQL_TYPE_DOUBLE = 5
MYSQL_TYPE_NULL = 6
MYSQL_TYPE_TIMESTAMP = 7
MYSQL_TYPE_LONGLONG = 8
MYSQL_TYPE_INT24 = 9
MYSQL_TYPE_DATE = 10
MYSQL_TYPE_TIME = 11
MYSQL_TYPE_DATETIME = 12
MYSQL_TYPE_YEAR = 13
MYSQL_TYPE_NEWDATE = 14
MYSQL_TYPE_VARCHAR = 15
MYSQL_TYPE_BIT = 16
MYSQL_TYPE_TIMESTAMP2 = 17
MYSQL_TYPE_DATETIME2 = 18
MYSQL_TYPE_TIME2 = 19
MYSQL_TYPE_JSON = 245
MYSQL_TYPE_NEWDECIMAL = 246
MYSQL_TYPE_ENUM = 247
MYSQL_TYPE_SET = 248
MYSQL_TYPE_TINY_BLOB = 249
MYSQL_TYPE_MEDIUM_BLOB = 250
MYSQL_TYPE_LONG_BLOB = 251
MYSQL_TYPE_BLOB = 252
MYSQL_TYPE_VAR_STRING = 253
MYSQL_TYPE_STRING = 254
MYSQL_TYPE_GEOMETRY = 255

BINARY_CHARSET = 63

INTEGER_CODES = {MYSQL_TYPE_TINY: 8, MYSQL_TYPE_SHORT: 16, MYSQL_TYPE_INT24: 24, MYSQL_TYPE_LONG: 32, MYSQL_TYPE_LONGLONG: 64}
_INTEGER_NAMES = {MYSQL_TYPE_TINY: "TINYINT", MYSQL_TYPE_SHORT: "SMALLINT", MYSQL_TYPE_INT24: "MEDIUMINT", MYSQL_TYPE_LONG: "INT", MYSQL_TYPE_LONGLONG: "BIGINT"}
_CODE_OF_INTEGER = {name: code for code, name in _INTEGER_NAMES.items()}
# Which metadata bytes each type has in a Table_map (table_def's constructor).
METADATA_SIZE = {
    MYSQL_TYPE_FLOAT: 1, MYSQL_TYPE_DOUBLE: 1, MYSQL_TYPE_BLOB: 1, MYSQL_TYPE_GEOMETRY: 1, MYSQL_TYPE_JSON: 1,
    MYSQL_TYPE_TIME2: 1, MYSQL_TYPE_DATETIME2: 1, MYSQL_TYPE_TIMESTAMP2: 1,
    MYSQL_TYPE_VARCHAR: 2, MYSQL_TYPE_VAR_STRING: 2, MYSQL_TYPE_STRING: 2, MYSQL_TYPE_ENUM: 2, MYSQL_TYPE_SET: 2,
    MYSQL_TYPE_NEWDECIMAL: 2, MYSQL_TYPE_BIT: 2,
}
NUMERIC_CODES = frozenset({*INTEGER_CODES, MYSQL_TYPE_NEWDECIMAL, MYSQL_TYPE_FLOAT, MYSQL_TYPE_DOUBLE})
_BLOB_SIZES = {"TINY": 1, "": 2, "MEDIUM": 3, "LONG": 4}
_BLOB_PREFIX = {size: prefix for prefix, size in _BLOB_SIZES.items()}


def string_metadata(real_type: int, length: int) -> int:
    """A STRING column's two metadata bytes (b0 << 8 | b1): the real type with the
    length's bits 8-9 folded in (Field_string::do_save_field_metadata)."""
    return (real_type ^ ((length & 0x300) >> 4)) << 8 | (length & 0xFF)


def string_real_type(metadata: int) -> tuple[int, int]:
    """(real type, length) of a STRING column's metadata: CHAR, ENUM or SET."""
    b0, b1 = metadata >> 8, metadata & 0xFF
    if b0 & 0x30 != 0x30:
        return b0 | 0x30, b1 | (((b0 & 0x30) ^ 0x30) << 4)
    return b0, b1


def is_character(type_code: int, metadata: int) -> bool:
    """A column the charset metadata covers (strings and blobs, not ENUM/SET)."""
    if type_code == MYSQL_TYPE_STRING:
        return string_real_type(metadata)[0] == MYSQL_TYPE_STRING
    return type_code in (MYSQL_TYPE_VARCHAR, MYSQL_TYPE_VAR_STRING, MYSQL_TYPE_BLOB)


def binlog_type(column_type: ColumnType, charset: int) -> tuple[int, int]:
    """(type code, metadata) the server writes for a catalog column type."""
    name, family = column_type.name, column_type.family
    if family is TypeFamily.INTEGER:
        return _CODE_OF_INTEGER[name], 0
    if family is TypeFamily.DECIMAL:
        return MYSQL_TYPE_NEWDECIMAL, (column_type.length or 10) << 8 | (column_type.scale or 0)
    if family is TypeFamily.FLOAT:
        return (MYSQL_TYPE_FLOAT, 4) if name == "FLOAT" else (MYSQL_TYPE_DOUBLE, 8)
    if family is TypeFamily.DATE:
        return MYSQL_TYPE_DATE, 0
    if family is TypeFamily.BIT:
        bits = column_type.length or 1
        return MYSQL_TYPE_BIT, (bits // 8) << 8 | bits % 8  # bytes, then bits beyond them
    if family is TypeFamily.JSON:
        return MYSQL_TYPE_JSON, 4  # Field_json: a 4-byte length, then the binary document
    if family is TypeFamily.DATETIME:
        return (MYSQL_TYPE_DATETIME2 if name == "DATETIME" else MYSQL_TYPE_TIMESTAMP2), column_type.scale or 0
    if family is TypeFamily.TIME:
        return MYSQL_TYPE_TIME2, column_type.scale or 0
    if family is TypeFamily.YEAR:
        return MYSQL_TYPE_YEAR, 0
    if column_type.is_enum_or_set:
        # Field_enum::do_save_field_metadata: the real type, then the pack length.
        real = MYSQL_TYPE_ENUM if family is TypeFamily.ENUM else MYSQL_TYPE_SET
        return MYSQL_TYPE_STRING, real << 8 | pack_length(name, column_type.members)
    if column_type.is_blob:
        return MYSQL_TYPE_BLOB, _BLOB_SIZES[name.removesuffix("TEXT").removesuffix("BLOB")]
    width = column_type.byte_length
    if name in ("CHAR", "BINARY"):
        return MYSQL_TYPE_STRING, string_metadata(MYSQL_TYPE_STRING, width)
    return MYSQL_TYPE_VARCHAR, width


def column_charset(column_type: ColumnType, text_charset: int) -> int | None:
    """The charset id of a character column (None for the others): its collation's; a
    column without one is utf8mb4 (ColumnType.charset), in `text_charset` when that is a
    utf8mb4 collation, else in utf8mb4_general_ci."""
    if column_type.family is TypeFamily.BINARY:
        return BINARY_CHARSET
    if column_type.family is not TypeFamily.STRING:
        return None
    if column_type.collation is not None:
        return collation_id(column_type.collation)
    utf8mb4 = COLLATION_NAMES.get(text_charset, "").startswith("utf8mb4_")
    return text_charset if utf8mb4 else collation_id("utf8mb4_general_ci")


def display_type(type_code: int, metadata: int, unsigned: bool | None) -> str:
    """The column's type as mysqlbinlog -vv names it from the event alone."""
    if type_code in INTEGER_CODES:
        return _INTEGER_NAMES[type_code] + (" UNSIGNED" if unsigned else "")
    if type_code == MYSQL_TYPE_NEWDECIMAL:
        return f"DECIMAL({metadata >> 8},{metadata & 0xFF})" + (" UNSIGNED" if unsigned else "")
    if type_code == MYSQL_TYPE_STRING:
        real, length = string_real_type(metadata)
        return {MYSQL_TYPE_ENUM: "ENUM", MYSQL_TYPE_SET: "SET"}.get(real, f"STRING({length})")
    if type_code in (MYSQL_TYPE_VARCHAR, MYSQL_TYPE_VAR_STRING):
        return f"VARSTRING({metadata})"
    if type_code == MYSQL_TYPE_BLOB:
        prefix = _BLOB_PREFIX.get(metadata, "")
        return f"{prefix}BLOB/{prefix}TEXT"
    if type_code in (MYSQL_TYPE_DATETIME2, MYSQL_TYPE_TIMESTAMP2, MYSQL_TYPE_TIME2):
        return {MYSQL_TYPE_DATETIME2: "DATETIME", MYSQL_TYPE_TIMESTAMP2: "TIMESTAMP", MYSQL_TYPE_TIME2: "TIME"}[type_code] + f"({metadata})"
    if type_code == MYSQL_TYPE_BIT:
        return f"BIT({(metadata >> 8) * 8 + (metadata & 0xFF)})"
    return _SIMPLE_NAMES.get(type_code, f"TYPE({type_code})")


_TEMPORAL_NAMES = {
    MYSQL_TYPE_DATETIME2: "DATETIME", MYSQL_TYPE_TIMESTAMP2: "TIMESTAMP", MYSQL_TYPE_TIME2: "TIME",
    MYSQL_TYPE_DATETIME: "DATETIME", MYSQL_TYPE_TIMESTAMP: "TIMESTAMP", MYSQL_TYPE_TIME: "TIME",
}
_SIMPLE_NAMES = {
    MYSQL_TYPE_FLOAT: "FLOAT", MYSQL_TYPE_DOUBLE: "DOUBLE", MYSQL_TYPE_DATE: "DATE", MYSQL_TYPE_NEWDATE: "DATE",
    MYSQL_TYPE_YEAR: "YEAR", MYSQL_TYPE_TIME: "TIME", MYSQL_TYPE_DATETIME: "DATETIME", MYSQL_TYPE_TIMESTAMP: "TIMESTAMP",
    MYSQL_TYPE_JSON: "JSON", MYSQL_TYPE_GEOMETRY: "GEOMETRY", MYSQL_TYPE_ENUM: "ENUM", MYSQL_TYPE_SET: "SET",
}


def master_column_type(type_code: int, metadata: int, unsigned: bool | None, charset: int | None, slave: ColumnType | None) -> ColumnType | None:
    """The master's column as a catalog type, for comparing with the slave's column;
    what the event leaves open (signedness, text or binary) is the slave column's (signed
    text where the slave has no such column). None for a type the catalog does not have."""
    if unsigned is None:
        unsigned = slave.unsigned if slave is not None else False
    if type_code in INTEGER_CODES:
        return ColumnType(_INTEGER_NAMES[type_code], unsigned)
    if type_code == MYSQL_TYPE_NEWDECIMAL:
        return ColumnType("DECIMAL", unsigned, metadata >> 8, metadata & 0xFF)
    if type_code in (MYSQL_TYPE_FLOAT, MYSQL_TYPE_DOUBLE):
        return ColumnType("FLOAT" if type_code == MYSQL_TYPE_FLOAT else "DOUBLE")
    if type_code in (MYSQL_TYPE_DATE, MYSQL_TYPE_NEWDATE):
        return ColumnType("DATE")
    if type_code in (MYSQL_TYPE_DATETIME2, MYSQL_TYPE_TIMESTAMP2, MYSQL_TYPE_TIME2):
        return ColumnType(_TEMPORAL_NAMES[type_code], scale=metadata or None)
    if type_code in (MYSQL_TYPE_DATETIME, MYSQL_TYPE_TIMESTAMP, MYSQL_TYPE_TIME):
        return ColumnType(_TEMPORAL_NAMES[type_code])
    if type_code == MYSQL_TYPE_YEAR:
        return ColumnType("YEAR")
    if type_code == MYSQL_TYPE_STRING and string_real_type(metadata)[0] in (MYSQL_TYPE_ENUM, MYSQL_TYPE_SET):
        # The members are not in the event (but for MySQL's FULL metadata, which a replica
        # does not use): the value is a number; the length is the pack length.
        name = "ENUM" if string_real_type(metadata)[0] == MYSQL_TYPE_ENUM else "SET"
        return ColumnType(name, length=metadata & 0xFF)
    if type_code == MYSQL_TYPE_BIT:
        return ColumnType("BIT", length=(metadata >> 8) * 8 + (metadata & 0xFF))
    if type_code == MYSQL_TYPE_JSON:
        return ColumnType("JSON")
    binary = charset == BINARY_CHARSET if charset is not None else slave is not None and slave.family is TypeFamily.BINARY
    collation = _text_collation(charset, slave)
    mbmaxlen = MBMAXLEN[charset_of_collation(collation)]
    if type_code == MYSQL_TYPE_BLOB and metadata in _BLOB_PREFIX:
        return ColumnType(_BLOB_PREFIX[metadata] + ("BLOB" if binary else "TEXT"), collation=None if binary else collation)
    if type_code == MYSQL_TYPE_STRING and string_real_type(metadata)[0] == MYSQL_TYPE_STRING:
        length = string_real_type(metadata)[1]
        return ColumnType("BINARY", length=length) if binary else ColumnType("CHAR", length=length // mbmaxlen, collation=collation)
    if type_code in (MYSQL_TYPE_VARCHAR, MYSQL_TYPE_VAR_STRING):
        return ColumnType("VARBINARY", length=metadata) if binary else ColumnType("VARCHAR", length=metadata // mbmaxlen, collation=collation)
    return None


def _text_collation(charset: int | None, slave: ColumnType | None) -> str | None:
    """The collation a master's text column is read in: the event's charset (MySQL's
    row metadata), else the slave column's, as a real replica reads the bytes it is given."""
    if charset is not None and charset != BINARY_CHARSET and charset in COLLATION_NAMES:
        return COLLATION_NAMES[charset]
    return slave.collation if slave is not None and slave.family is TypeFamily.STRING else None


@lru_cache(maxsize=1024)
def column_info(column_type: ColumnType, nullable: bool, text_charset: int) -> ColumnInfo:
    """A table-map column as a server writes it for a catalog column: type code, metadata
    and nullability, with signedness and charset (which only MySQL's MINIMAL row metadata
    writes to the file); text columns in `text_charset`."""
    charset = column_charset(column_type, text_charset)
    code, metadata = binlog_type(column_type, charset or 0)
    unsigned = column_type.unsigned if code in NUMERIC_CODES else None
    return ColumnInfo(display_type(code, metadata, unsigned), nullable, code, metadata, unsigned, charset)
