"""Reading a binary log file event by event, driven by its own Format_description.

Every failure (bad magic, a cut or corrupt event, a checksum mismatch, an event type not
supported) is a BinlogCorruptError naming the file and the position of the event.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..events import Format_description_log_event, Log_event
from ..file import BinlogCorruptError
from .codec import MYSQL, FormatContext
from .format_description import FORMAT_DESCRIPTION_TYPE, body_length_ok, context_of
from .header import HEADER_LENGTH, MAGIC, unpack_header
from .packing import EventDecodeError
from .registry import decode_event


@dataclass(frozen=True)
class BinaryEvent:
    position: int
    end_log_pos: int
    event: Log_event
    data: bytes  # the whole event, header to checksum


def iter_binary_events(data: bytes, path: Path) -> Iterator[BinaryEvent]:
    """The events of a whole binlog file's bytes, in order."""
    if data[:4] != MAGIC:
        raise BinlogCorruptError(path, 0, "not a binary log file (no FE 62 69 6E magic bytes)")
    position = 4
    ctx = FormatContext(MYSQL)
    while position < len(data):
        try:
            header = unpack_header(data[position : position + HEADER_LENGTH])
            if header.event_size < HEADER_LENGTH or position + header.event_size > len(data):
                raise EventDecodeError(f"event of {header.event_size} bytes, {len(data) - position} left in the file (truncated)")
            if position == 4:
                if header.type_code != FORMAT_DESCRIPTION_TYPE or not body_length_ok(header.event_size):
                    raise EventDecodeError("the first event is not a Format_description")
            raw_event = data[position : position + header.event_size]
            decoded = decode_event(raw_event, ctx)
        except (EventDecodeError, ValueError, OverflowError) as error:
            raise BinlogCorruptError(path, position, str(error)) from None
        if isinstance(decoded.event, Format_description_log_event):
            ctx = context_of(decoded.event)
        end = position + header.event_size
        yield BinaryEvent(position, end, decoded.event, raw_event)
        position = end
