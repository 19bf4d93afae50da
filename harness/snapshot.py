"""Table snapshots: the rows each server holds at the end of a run, ready to compare."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from decimal import Decimal

from server_sim.temporal_types import time_literal_text


@dataclass(frozen=True)
class TableSnapshot:
    """The rows of one table on one server, in the server's physical order; `key` is the
    table's primary key (its columns), empty when it has none."""

    table: str
    columns: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]
    key: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerSnapshot:
    """Every user table of one server, keyed by lower-case table name."""

    tables: dict[str, TableSnapshot]


def canonical(value: object) -> object:
    """A JSON value that is equal on both sides exactly when MySQL would call the values equal.

    Numbers compare by value whatever their column type (`5`, `5.00` and `5.0` are one
    value); bytes become hex; dates and times ISO text.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, (float, Decimal)):
        number = Decimal(str(value)) if isinstance(value, float) else value
        if number == number.to_integral_value():
            return int(number)
        return str(number.normalize())
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "0x" + bytes(value).hex()
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, dt.timedelta):  # TIME: [-]HH:MM:SS, the microseconds when there are any
        return time_literal_text(value)
    return str(value)


def row_key(values: dict[str, object], columns: tuple[str, ...]) -> str:
    """The text that identifies a row on `columns` (already canonical values)."""
    return json.dumps([values[name] for name in columns], separators=(",", ":"))
