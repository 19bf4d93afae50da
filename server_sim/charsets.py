"""Character sets and collations by name and id: what the charset variables hold and what a
Query event carries (its Q_CHARSET_CODE status variable: the ids of character_set_client's
default collation, collation_connection and collation_server).

The simulator keeps every string as Unicode text and compares text by one rule
(collation.py); these names and ids are what the sessions set and the binlog carries.
"""

from __future__ import annotations

from dataclasses import dataclass


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
