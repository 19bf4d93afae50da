"""The binlog file: one JSON event per line, a Format_description event first.

An event's position is the byte offset of its line, as a real binlog's positions are byte
offsets; `end_log_pos` is where the next event starts. A line that is not a complete,
valid event is an error naming its position, never skipped.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .events import (
    EVENT_CLASSES,
    ColumnInfo,
    Format_description_log_event,
    Log_event,
    Row,
    Rows_log_event,
    Table_map_log_event,
    Unknown_log_event,
    body_fields,
    known_event_types,
    type_code_of,
    type_name_of,
)

_HEADER = ("server_id", "timestamp", "flags")
# Fields that hold binary-format detail as read from a file; not part of the JSON form.
_BINARY_ONLY = frozenset({"post_header_lengths", "other_status", "other_metadata", "extra_data", "raw"})


class BinlogCorruptError(Exception):
    """The file cannot be read at `position`: truncated, not JSON, or not an event."""

    def __init__(self, path: Path, position: int, reason: str) -> None:
        self.path = path
        self.position = position
        self.reason = reason
        super().__init__(f"{path}: corrupt binlog event at position {position}: {reason}")


@dataclass(frozen=True)
class PositionedEvent:
    position: int
    end_log_pos: int
    event: Log_event


def encode(event: Log_event) -> str:
    record: dict[str, object] = {"type": type_name_of(event), "type_code": type_code_of(event)}
    record.update({name: getattr(event, name) for name in _HEADER})
    if isinstance(event, Unknown_log_event):
        record.update(event.fields)
    else:
        record.update({name: value for name, value in event.body().items() if name not in _BINARY_ONLY})
    return json.dumps(record, separators=(",", ":"), default=str) + "\n"


class BinlogWriter:
    """Appends events to a binlog file; the first event describes the format."""

    def __init__(self, path: Path, server_version: str, flavor: str, server_id: int, timestamp: int) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("w", encoding="utf-8")
        self.position = 0
        self.write(
            Format_description_log_event(
                server_id=server_id,
                timestamp=timestamp,
                server_version=server_version,
                flavor=flavor,
                event_types=known_event_types(),
            )
        )

    def write(self, event: Log_event) -> int:
        """Write one event; returns its position."""
        line = encode(event)
        position = self.position
        self._file.write(line)
        self.position += len(line.encode("utf-8"))
        return position

    def write_group(self, events: Iterable[Log_event]) -> None:
        for event in events:
            self.write(event)
        self._file.flush()

    def close(self) -> None:
        self._file.close()


_CLASSES_BY_CODE: dict[int, tuple[type[Log_event], int | None]] = {}
for _cls in EVENT_CLASSES:
    if issubclass(_cls, Rows_log_event):
        _CLASSES_BY_CODE[_cls.v1_type_code] = (_cls, 1)
        _CLASSES_BY_CODE[_cls.v2_type_code] = (_cls, 2)
    else:
        _CLASSES_BY_CODE[_cls.type_code] = (_cls, None)


def decode(record: dict[str, object], max_type_code: int) -> Log_event:
    """An event object from its JSON record; unknown types become Unknown_log_event."""
    code = record.get("type_code")
    if not isinstance(code, int):
        raise ValueError("no integer type_code")
    if code > max_type_code:
        raise ValueError(f"event type {code} is beyond the {max_type_code} types the format description declares")
    header = {name: record.get(name, 0) for name in _HEADER}
    if not all(isinstance(value, int) for value in header.values()):
        raise ValueError("server_id, timestamp and flags must be integers")
    known = _CLASSES_BY_CODE.get(code)
    if known is None:
        fields = {k: v for k, v in record.items() if k not in ("type", "type_code", *_HEADER)}
        return Unknown_log_event(**header, unknown_type_code=code, unknown_type_name=str(record.get("type", "")), fields=fields)
    cls, version = known
    body = _checked_body(cls, record)
    if isinstance(body.get("charset"), list):
        body["charset"] = tuple(body["charset"])
    if cls is Table_map_log_event:
        body["columns"] = [_column_info(column) for column in body.get("columns", [])]
    if version is not None:
        body["version"] = version
        body["rows"] = [_row(row) for row in body.get("rows", [])]
    event = cls(**header, **body)
    event.flags = int(header["flags"])
    return event


def _checked_body(cls: type[Log_event], record: dict[str, object]) -> dict[str, object]:
    """The record's fields for `cls`, each of the type the event declares (by its default)."""
    body: dict[str, object] = {}
    for name, expected in _declared_types(cls):
        if name not in record:
            continue
        value = record[name]
        if expected is not None and not (isinstance(value, expected) and not (expected is int and isinstance(value, bool))):
            raise ValueError(f"{cls.type_name} field {name!r} should be {expected.__name__}, got {type(value).__name__}")
        body[name] = value
    return body


@cache
def _declared_types(cls: type[Log_event]) -> tuple[tuple[str, type | None], ...]:
    """Each body field of `cls` with the type of its default (None: any type), once per class."""
    declared = []
    for spec in body_fields(cls):
        default = spec.default_factory() if spec.default_factory is not dataclasses.MISSING else spec.default
        declared.append((spec.name, None if default is None else type(default)))
    return tuple(declared)


def _column_info(column: object) -> ColumnInfo:
    if not (isinstance(column, list) and len(column) == 2 and isinstance(column[0], str)):
        raise ValueError(f"table map column {column!r} is not [type, nullable]")
    return ColumnInfo(column[0], bool(column[1]))


def _row(row: object) -> Row:
    if not isinstance(row, dict) or not all(isinstance(row.get(k, []), list) for k in ("before", "after")):
        raise ValueError(f"row {row!r} is not an object of before/after images")
    return Row(before=row.get("before"), after=row.get("after"))


class BinlogReader:
    """An open binlog file, its Format_description read once: a replica reads one
    transaction at a time from its position, and would otherwise decode that event again
    for each. BinlogCorruptError when the file does not start with one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = path.open("rb")
        try:
            first = self._file.readline()
            if not first:
                raise BinlogCorruptError(path, 0, "empty file: no Format_description event")
            self.description = _decode_line(path, 0, first, max_type_code=0)
        except BaseException:
            self._file.close()
            raise
        self._max_type_code = max(int(code) for code in self.description.event.event_types.values())

    def events(self, start: int = 0) -> Iterator[PositionedEvent]:
        """The events in order from the one at byte `start` on (the Format_description
        first when `start` is 0); BinlogCorruptError at the first bad line."""
        if start == 0:
            yield self.description
        file, path = self._file, self.path
        position = max(start, self.description.end_log_pos)
        file.seek(position - 1)
        before = file.read(1)
        if before != b"\n":
            reason = "beyond the end of the file" if not before else "not the start of an event"
            raise BinlogCorruptError(path, position, f"the position is {reason}")
        for raw in file:
            event = _decode_line(path, position, raw, self._max_type_code)
            yield event
            position = event.end_log_pos

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> BinlogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_binlog(path: Path, start: int = 0) -> Iterator[PositionedEvent]:
    """The events of a binlog file in order, from the event at byte `start` on (the
    Format_description event is read first in any case, as a real reader does);
    BinlogCorruptError at the first bad line."""
    with BinlogReader(path) as reader:
        yield from reader.events(start)


def _decode_line(path: Path, position: int, raw: bytes, max_type_code: int) -> PositionedEvent:
    if not raw.endswith(b"\n"):
        raise BinlogCorruptError(path, position, "truncated event (the line has no end)")
    try:
        record = json.loads(raw)
        if not isinstance(record, dict):
            raise ValueError("not a JSON object")
        if position == 0:
            if record.get("type_code") != Format_description_log_event.type_code:
                raise ValueError("the first event is not a Format_description event")
            event_types = record.get("event_types")
            if not isinstance(event_types, dict) or not event_types:
                raise ValueError("the format description declares no event types")
            max_type_code = max(int(code) for code in event_types.values())
        event = decode(record, max_type_code)
    except (ValueError, TypeError, KeyError) as error:
        raise BinlogCorruptError(path, position, str(error)) from None
    return PositionedEvent(position, position + len(raw), event)
