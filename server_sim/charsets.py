"""Character sets and collations by name and id: what the charset variables hold and what a
Query event carries (its Q_CHARSET_CODE status variable: the ids of character_set_client's
default collation, collation_connection and collation_server).

The simulator keeps every string as Unicode text and compares text by one rule
(collation.py); these names and ids are what the sessions set and the binlog carries. A
text column's collation (types.ColumnType.collation) gives its character set: how many
bytes a character may take (its byte length in a Table_map), the bytes of its values in
row events, and the characters it cannot hold (1366).
"""

from __future__ import annotations

import codecs

from dataclasses import dataclass

from .errors import ErrorCode, SqlError, not_supported


@dataclass(frozen=True)
class Collation:
    name: str
    id: int
    charset: str


COLLATIONS: dict[str, Collation] = {
    c.name: c
    for c in (
        Collation("latin1_swedish_ci", 8, "latin1"),
        Collation("latin1_bin", 47, "latin1"),
        Collation("latin1_general_ci", 48, "latin1"),
        Collation("ascii_general_ci", 11, "ascii"),
        Collation("ascii_bin", 65, "ascii"),
        Collation("utf8mb3_general_ci", 33, "utf8mb3"),
        Collation("utf8mb3_bin", 83, "utf8mb3"),
        Collation("utf8mb3_unicode_ci", 192, "utf8mb3"),
        Collation("utf8mb4_general_ci", 45, "utf8mb4"),
        Collation("utf8mb4_bin", 46, "utf8mb4"),
        Collation("utf8mb4_unicode_ci", 224, "utf8mb4"),
        Collation("utf8mb4_unicode_520_ci", 246, "utf8mb4"),
        Collation("utf8mb4_0900_ai_ci", 255, "utf8mb4"),
        Collation("utf8mb4_0900_as_cs", 278, "utf8mb4"),
        Collation("utf8mb4_0900_bin", 309, "utf8mb4"),
        Collation("binary", 63, "binary"),
    )
}

# Each character set's default collation (utf8mb4's is the flavor's: Flavor.utf8mb4_collation).
_DEFAULT_COLLATIONS = {
    "latin1": "latin1_swedish_ci",
    "ascii": "ascii_general_ci",
    "utf8mb3": "utf8mb3_general_ci",
    "utf8mb4": "utf8mb4_general_ci",
    "binary": "binary",
}
CHARSET_NAMES: tuple[str, ...] = tuple(_DEFAULT_COLLATIONS)
_ALIASES = {"utf8": "utf8mb3"}


def charset_name(name: str) -> str | None:
    """The canonical name of a character set (utf8 is utf8mb3), or None when unknown."""
    key = name.strip().strip("'\"`").lower()
    key = _ALIASES.get(key, key)
    return key if key in _DEFAULT_COLLATIONS else None


def default_collation(charset: str, utf8mb4_collation: str) -> str:
    return utf8mb4_collation if charset == "utf8mb4" else _DEFAULT_COLLATIONS[charset]


def collation_id(name: str) -> int:
    return COLLATIONS[name].id
COLLATION_NAMES: dict[int, str] = {c.id: c.name for c in COLLATIONS.values()}


# Bytes a character may take (the charset's mbmaxlen): a string column's byte length in the
# binlog is its length in characters times this.
MBMAXLEN = {"latin1": 1, "ascii": 1, "utf8mb3": 3, "utf8mb4": 4, "binary": 1}
# The Python codec of each character set: MySQL's latin1 is Windows-1252 (0x80 is the euro
# sign), with the five bytes Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D)
# mapped to the code points of the same number (both servers' ctype-latin1.c).
_CODECS = {"latin1": "cp1252", "ascii": "ascii", "utf8mb3": "utf-8", "utf8mb4": "utf-8"}
_LATIN1_GAPS = frozenset({0x81, 0x8D, 0x8F, 0x90, 0x9D})


def _latin1_decode_gap(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    byte = error.object[error.start]
    if byte not in _LATIN1_GAPS:
        raise error
    return chr(byte), error.start + 1


def _latin1_encode_gap(error: UnicodeError) -> tuple[bytes, int]:
    assert isinstance(error, UnicodeEncodeError)
    char = ord(error.object[error.start])
    if char not in _LATIN1_GAPS:
        raise error
    return bytes([char]), error.start + 1


codecs.register_error("mysql_latin1_decode", _latin1_decode_gap)
codecs.register_error("mysql_latin1_encode", _latin1_encode_gap)


def encode_text(text: str, charset: str) -> bytes:
    """`text` as a column of `charset` stores it (its row-event bytes); UnicodeEncodeError
    for a character the charset cannot hold."""
    if charset == "utf8mb3" and any(ord(char) > 0xFFFF for char in text):
        raise UnicodeEncodeError("utf8mb3", text, 0, len(text), "a character beyond the BMP")
    if charset == "latin1":
        return text.encode("cp1252", errors="mysql_latin1_encode")
    return text.encode(_CODECS.get(charset, "utf-8"))


def decode_text(data: bytes, charset: str) -> str:
    """Bytes of a `charset` column as text; UnicodeDecodeError when they are not of it."""
    if charset == "latin1":
        return data.decode("cp1252", errors="mysql_latin1_decode")
    if charset == "utf8mb3" and any(byte >= 0xF0 for byte in data):
        decoded = data.decode("utf-8")
        if any(ord(char) > 0xFFFF for char in decoded):
            start = next(index for index, byte in enumerate(data) if byte >= 0xF0)
            raise UnicodeDecodeError("utf8mb3", data, start, start + 1, "a character beyond the BMP")
        return decoded
    return data.decode(_CODECS.get(charset, "utf-8"))


def unrepresentable(text: str, charset: str) -> int | None:
    """The index of the first character of `text` a `charset` column cannot hold, or None."""
    if charset == "utf8mb4" or text.isascii():
        return None
    try:
        encode_text(text, charset)
        return None
    except UnicodeEncodeError:
        pass
    for index, char in enumerate(text):
        try:
            encode_text(char, charset)
        except UnicodeEncodeError:
            return index
    return None


def resolve_collation(charset: str | None, collation: str | None, default: str | None, utf8mb4_collation: str) -> str | None:
    """The collation of a CHARACTER SET x [COLLATE y] clause (a table's or a column's),
    else `default`: 1235 for a character set or collation the simulator does not model,
    1253 for a collation of another character set."""
    canonical = charset_name(charset) if charset is not None else None
    if charset is not None and canonical is None:
        raise not_supported(f"character set {charset} (the simulator models {', '.join(CHARSET_NAMES)})")
    if collation is not None:
        name = collation.strip().strip("'\"`").lower().replace("utf8_", "utf8mb3_")
        if name not in COLLATIONS:
            raise not_supported(f"collation {collation} (the simulator models {', '.join(COLLATIONS)})")
        if canonical is not None and COLLATIONS[name].charset != canonical:
            raise SqlError(ErrorCode.ER_COLLATION_CHARSET_MISMATCH, name, canonical)
        return name
    if canonical is not None:
        return default_collation(canonical, utf8mb4_collation)
    return default


def charset_of_collation(collation: str | None) -> str:
    """A column's character set; a column without a collation is utf8mb4 (a column built
    outside any table definition, such as a stored program's variable)."""
    return COLLATIONS[collation].charset if collation is not None else "utf8mb4"


def variable_collation(charset: str, collation: str, utf8mb4_collation: str) -> str | None:
    """The collation a pair of variables names (character_set_database and
    collation_database): the collation when it is of the charset, else the charset's
    default (the server sets both together; a session may have set only the charset)."""
    canonical = charset_name(charset)
    if canonical is None:
        return None
    if collation in COLLATIONS and COLLATIONS[collation].charset == canonical:
        return collation
    return default_collation(canonical, utf8mb4_collation)
