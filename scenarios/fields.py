"""Validators of the values a scenario file gives: each returns the value in the form the
model keeps, or raises FieldError naming the key, so the loader only says which key
holds what and a file's first problem is reported with its place."""

from __future__ import annotations

import re
from typing import Any

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class FieldError(Exception):
    """A problem at one key of a file; the caller adds the file name."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


def flag(value: Any, key: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise FieldError(key, f"expected true or false, got {describe(value)}")
    return value


def error_code(value: Any, key: str, allow_zero: bool = False) -> int:
    """A MySQL error code (0, no error, where allowed); bools are rejected although
    Python counts them as ints."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(key, f"expected a MySQL error code (an int), got {describe(value)}")
    if value < 0 or (value == 0 and not allow_zero):
        lowest = "0 (no error) or a" if allow_zero else "a"
        raise FieldError(key, f"expected {lowest} positive MySQL error code, got {value}")
    return value


def variables(value: Any, key: str) -> dict[str, Any]:
    """A mapping keyed by variable name, names lower-cased and stripped; null means empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FieldError(key, f"expected a mapping of variable -> value, got {describe(value)}")
    variables: dict[str, Any] = {}
    for raw_name, raw in value.items():
        if not isinstance(raw_name, str) or not raw_name.strip():
            got = f"{describe(raw_name)} {raw_name!r}"
            raise FieldError(key, f"variable names must be non-empty strings, got {got}")
        name = raw_name.strip().lower()
        if name in variables:
            raise FieldError(f"{key}.{name}", "variable given twice (names are case-insensitive)")
        variables[name] = raw
    return variables


def scalar(value: Any, key: str) -> str:
    """A variable value as MySQL shows it: bools ON/OFF, numbers as text, strings upper-case."""
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value.strip().upper()
    raise FieldError(key, f"expected a string, number or ON/OFF, got {describe(value)}")


def scalar_tuple(values: list[Any], key: str) -> tuple[str, ...]:
    """Normalised values of a list; a repeat would run (or match) the same variant twice."""
    normalised: list[str] = []
    for position, raw in enumerate(values):
        value = scalar(raw, f"{key}[{position}]")
        if value in normalised:
            raise FieldError(f"{key}[{position}]", f"value {value} is listed twice")
        normalised.append(value)
    return tuple(normalised)


def sql_list(value: Any, key: str) -> tuple[str, ...]:
    items = enumerate(sequence(value, key))
    return tuple(nonblank_string(raw, f"{key}[{position}]") for position, raw in items)


def sequence(value: Any, key: str) -> list[Any]:
    """A YAML sequence; null or absent means empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldError(key, f"expected a list, got {describe(value)}")
    return value


def nonblank_string(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise FieldError(key, f"expected a string, got {describe(value)}")
    if not value.strip():
        raise FieldError(key, "must not be empty or blank")
    return value.strip()


def optional_string(value: Any, key: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FieldError(key, f"expected a string, got {describe(value)}")
    return value.strip()


def reject_unknown_keys(
    mapping: dict[Any, Any], allowed: tuple[str, ...], key: str, intro: str
) -> None:
    for name in mapping:
        if name not in allowed:
            where = f"{key}.{name}" if key else str(name)
            raise FieldError(where, f"unknown key; {intro}: {', '.join(allowed)}")


def describe(value: Any) -> str:
    """A YAML-flavoured type name for messages ('string', 'mapping', not 'str', 'dict')."""
    names = {bool: "bool", int: "int", float: "float", str: "string", list: "list", dict: "mapping"}
    if value is None:
        return "null"
    return names.get(type(value), type(value).__name__)
