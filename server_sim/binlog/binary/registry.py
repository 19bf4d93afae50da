"""Every event body this project reads and writes, by type code, and the whole-event
step on top of the bodies: header, body, checksum, at a file position.

MariaDB's compressed Query and Rows events (165-171, `log_bin_compress`) are read as the
plain events they stand for, their record inflated; MySQL's Transaction_payload (40) is
opened by the file reader, which decodes the events inside. Reading one here, outside a
file, is an error that names it, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..events import Log_event, Table_map_log_event, Unknown_log_event, type_code_of
from . import format_description, framing, row_events, statement_events
from .codec import EventCodec, FormatContext
from .compression import COMPRESSED_EVENT_TYPES, record_offset, unpack_compressed
from .header import (
    CHECKSUM_LENGTH,
    HEADER_LENGTH,
    LOG_EVENT_IGNORABLE_F,
    EventHeader,
    frame,
    unpack_header,
    verify_checksum,
)
from .packing import EventDecodeError

CODECS: dict[int, EventCodec] = {
    **format_description.CODECS,
    **statement_events.CODECS,
    **row_events.CODECS,
    **framing.CODECS,
}
UNSUPPORTED: dict[int, str] = {
    40: "Transaction_payload (binlog_transaction_compression)",
}


class UnsupportedEventError(EventDecodeError):
    """An event a real server writes that this reader does not decode yet."""


def encode_body(event: Log_event, ctx: FormatContext) -> bytes:
    """The event's body (no header, no checksum); a table map is remembered in `ctx` for
    the row events after it."""
    if isinstance(event, Unknown_log_event):
        return event.raw
    body = CODECS[type_code_of(event)].encode_body(event, ctx)
    if isinstance(event, Table_map_log_event):
        ctx.table_maps[event.table_id] = event
    return body


def frame_body(event: Log_event, body: bytes, ctx: FormatContext, position: int) -> bytes:
    """The whole event around `body`, at file offset `position`."""
    code = type_code_of(event)
    checksum = ctx.checksum or code == format_description.FORMAT_DESCRIPTION_TYPE
    return frame(event.timestamp, code, event.server_id, event.flags, body, position, checksum)


def event_size(body: bytes, ctx: FormatContext) -> int:
    return HEADER_LENGTH + len(body) + (CHECKSUM_LENGTH if ctx.checksum else 0)


def encode_event(event: Log_event, ctx: FormatContext, position: int) -> bytes:
    """The whole event as it stands at file offset `position`."""
    return frame_body(event, encode_body(event, ctx), ctx, position)


@dataclass(frozen=True)
class DecodedEvent:
    header: EventHeader
    event: Log_event


def decode_event(data: bytes, ctx: FormatContext, header: EventHeader | None = None) -> DecodedEvent:
    """One whole event (header to checksum; `header`: its header, when the caller has
    read it already); EventDecodeError says what is wrong with it."""
    header = header or unpack_header(data)
    if header.event_size != len(data):
        raise EventDecodeError(f"event size {header.event_size} but {len(data)} bytes given")
    is_fde = header.type_code == format_description.FORMAT_DESCRIPTION_TYPE
    body_end = len(data)
    if ctx.checksum or is_fde:
        if len(data) < HEADER_LENGTH + CHECKSUM_LENGTH:
            raise EventDecodeError(f"an event of {len(data)} bytes has no room for its checksum")
        body_end -= CHECKSUM_LENGTH
        if ctx.checksum or (is_fde and data[body_end - 1] == 1):
            verify_checksum(data)
    body = data[HEADER_LENGTH:body_end]
    if header.type_code in COMPRESSED_EVENT_TYPES:
        body, header = _inflated(body, header, ctx)
    codec = CODECS.get(header.type_code)
    if codec is None:
        if header.type_code in UNSUPPORTED:
            raise UnsupportedEventError(f"{UNSUPPORTED[header.type_code]} (type {header.type_code}) is not supported by this reader")
        if not header.flags & LOG_EVENT_IGNORABLE_F:
            raise UnsupportedEventError(f"unknown event type {header.type_code} without the ignorable flag")
        event: Log_event = Unknown_log_event(
            server_id=header.server_id, timestamp=header.timestamp, flags=header.flags, unknown_type_code=header.type_code, raw=body
        )
        return DecodedEvent(header, event)
    event = codec.decode_body(body, header, ctx)
    if isinstance(event, Table_map_log_event):
        ctx.table_maps[event.table_id] = event
    return DecodedEvent(header, event)


def _inflated(body: bytes, header: EventHeader, ctx: FormatContext) -> tuple[bytes, EventHeader]:
    """A compressed event's body with its record inflated, and its header as the plain
    event's: what the server's uncompress step hands the event's own reader."""
    entry = COMPRESSED_EVENT_TYPES[header.type_code]
    lengths = ctx.post_header_lengths
    post_header = lengths[header.type_code - 1] if len(lengths) >= header.type_code else 0
    try:
        offset = record_offset(entry, body, post_header)
        original, used = unpack_compressed(body[offset:])
    except ValueError as error:
        raise EventDecodeError(f"{entry.name}: {error}") from None
    if used != len(body) - offset:
        raise EventDecodeError(f"{entry.name}: {len(body) - offset - used} bytes after its compressed record")
    return body[:offset] + original, header._replace(type_code=entry.uncompressed_type)
