"""The 19-byte common header every event starts with, its flags, and the CRC32 footer.

`event_size` counts header, body and checksum; `log_pos` is the offset where the next
event starts. With binlog_checksum=CRC32 each event ends with zlib's crc32 of its other
bytes; with NONE only the Format_description keeps one (MariaDB), computed, as the server
does, with its BINLOG_IN_USE flag cleared.
"""

from __future__ import annotations

import struct
import zlib
from typing import NamedTuple

from .packing import EventDecodeError

MAGIC = b"\xfebin"
HEADER_LENGTH = 19
CHECKSUM_LENGTH = 4

BINLOG_CHECKSUM_ALG_OFF = 0
BINLOG_CHECKSUM_ALG_CRC32 = 1
CHECKSUM_ALGORITHMS = {"NONE": BINLOG_CHECKSUM_ALG_OFF, "CRC32": BINLOG_CHECKSUM_ALG_CRC32}

LOG_EVENT_BINLOG_IN_USE_F = 0x01
LOG_EVENT_THREAD_SPECIFIC_F = 0x04
LOG_EVENT_SUPPRESS_USE_F = 0x08
LOG_EVENT_ARTIFICIAL_F = 0x20
LOG_EVENT_IGNORABLE_F = 0x80

_HEADER = struct.Struct("<IBIIIH")


class EventHeader(NamedTuple):
    """The common header (a tuple: one is made for every event read)."""

    timestamp: int
    type_code: int
    server_id: int
    event_size: int
    log_pos: int
    flags: int


def unpack_header(data: bytes, offset: int = 0) -> EventHeader:
    """The header at `offset` of `data`."""
    if len(data) - offset < HEADER_LENGTH:
        raise EventDecodeError(f"the event header needs {HEADER_LENGTH} bytes, {len(data) - offset} left in the file")
    return EventHeader._make(_HEADER.unpack_from(data, offset))


def frame(timestamp: int, type_code: int, server_id: int, flags: int, body: bytes, position: int, checksum: bool) -> bytes:
    """A whole event at file offset `position`: header, body and (with `checksum`) CRC32."""
    size = HEADER_LENGTH + len(body) + (CHECKSUM_LENGTH if checksum else 0)
    data = _HEADER.pack(timestamp, type_code, server_id, size, position + size, flags) + body
    if checksum:
        data += struct.pack("<I", event_crc(data))
    return data


def event_crc(data: bytes) -> int:
    """The CRC32 of an event's bytes before its footer; a Format_description's with
    BINLOG_IN_USE cleared (the server clears it in place when it closes the file)."""
    if len(data) > 4 and data[4] == 15 and data[17] & LOG_EVENT_BINLOG_IN_USE_F:
        data = data[:17] + bytes((data[17] & ~LOG_EVENT_BINLOG_IN_USE_F,)) + data[18:]
    return zlib.crc32(data)


def verify_checksum(event: bytes) -> None:
    """EventDecodeError when the footer of a whole event is not its CRC32."""
    stored = struct.unpack_from("<I", event, len(event) - CHECKSUM_LENGTH)[0]
    computed = event_crc(event[:-CHECKSUM_LENGTH])
    if stored != computed:
        raise EventDecodeError(f"checksum mismatch: the event says {stored:#010x}, its bytes give {computed:#010x}")
