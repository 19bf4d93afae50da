"""sql_mode as the Query event's Q_SQL_MODE_CODE carries it: a 64-bit set of MODE_* bits.

The bit of each mode is the servers' (sql_class.h / sql_mode.h); the text is the modes
in bit order, as SELECT @@sql_mode shows them. A bit neither flavor names reads as
BIT_<n> and is written back as that bit, so no bit is lost on a round trip.
"""

from __future__ import annotations

from functools import lru_cache

_COMMON = (
    "REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", None, "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION", "NO_DIR_IN_CREATE", "POSTGRESQL", "ORACLE", "MSSQL", "DB2", "MAXDB",
    "NO_KEY_OPTIONS", "NO_TABLE_OPTIONS", "NO_FIELD_OPTIONS", "MYSQL323", "MYSQL40", "ANSI",
    "NO_AUTO_VALUE_ON_ZERO", "NO_BACKSLASH_ESCAPES", "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "INVALID_DATES", "ERROR_FOR_DIVISION_BY_ZERO", "TRADITIONAL",
    "NO_AUTO_CREATE_USER", "HIGH_NOT_PRECEDENCE", "NO_ENGINE_SUBSTITUTION", "PAD_CHAR_TO_FULL_LENGTH",
)
_NAMES: dict[str, tuple[str | None, ...]] = {
    "mysql": (*_COMMON, "TIME_TRUNCATE_FRACTIONAL"),
    "mariadb": (
        *_COMMON[:4], "IGNORE_BAD_TABLE_OPTIONS", *_COMMON[5:],
        "EMPTY_STRING_IS_NULL", "SIMULTANEOUS_ASSIGNMENT", "TIME_ROUND_FRACTIONAL",
    ),
}
_BITS = {flavor: {name: 1 << bit for bit, name in enumerate(names) if name} for flavor, names in _NAMES.items()}


@lru_cache(maxsize=256)
def sql_mode_bits(text: str, flavor: str) -> int:
    bits = 0
    for name in filter(None, (part.strip().upper() for part in text.split(","))):
        if name.startswith("BIT_") and name[4:].isdigit():
            bits |= 1 << int(name[4:])
        else:
            bits |= _BITS[flavor][name]
    return bits


@lru_cache(maxsize=256)
def sql_mode_text(bits: int, flavor: str) -> str:
    names = _NAMES[flavor]
    return ",".join(
        (names[bit] if bit < len(names) and names[bit] else f"BIT_{bit}") for bit in range(64) if bits >> bit & 1
    )
