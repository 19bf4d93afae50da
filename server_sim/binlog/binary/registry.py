"""Every event body this project reads and writes, by type code, and the whole-event
step on top of the bodies: header, body, checksum, at a file position.

Types a real server writes that are read elsewhere once they are supported (MySQL's
Transaction_payload, 40; MariaDB's compressed Query and Rows events, 165-171) have no
entry here: reading one is an error that names it, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..events import Log_event, Table_map_log_event, Unknown_log_event, type_code_of
from . import format_description, framing, row_events, statement_events
from .codec import EventCodec, FormatContext
from .header import CHECKSUM_LENGTH, HEADER_LENGTH, LOG_EVENT_IGNORABLE_F, EventHeader, frame, unpack_header, verify_checksum
from .packing import EventDecodeError

CODECS: dict[int, EventCodec] = {
    **format_description.CODECS,
    **statement_events.CODECS,
    **row_events.CODECS,
    **framing.CODECS,
}
UNSUPPORTED: dict[int, str] = {
    40: "Transaction_payload (binlog_transaction_compression)",
    **{code: "a compressed event (log_bin_compress)" for code in range(165, 172)},
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
