"""Events as base64 text: the payload of a `BINLOG '...'` statement.

mysqlbinlog prints the events it cannot show as SQL (the format description, table maps
and row events) as BINLOG statements whose text is the events' bytes in base64, exactly
as the binlog file holds them; a server that runs such a statement applies the events as
a replica would. The statements `binlog show --base64-output=AUTO` prints carry the
binary events, so they run on a real server as on the simulated master.
"""

from __future__ import annotations

import base64
import binascii
import re
import textwrap
from collections.abc import Iterable

from ..errors import ErrorCode, SqlError
from .binary.codec import MYSQL, FormatContext
from .binary.format_description import context_of
from .binary.header import CHECKSUM_LENGTH, HEADER_LENGTH, event_crc, unpack_header
from .binary.packing import EventDecodeError
from .binary.registry import decode_event, encode_event
from .binary.row_events import UnmappedTableError
from .events import Format_description_log_event, Log_event

_WHITESPACE = re.compile(r"\s+")
_CHUNK = re.compile(r"[^=]*=*")
_LINE = 76  # mysqlbinlog's base64 line length


def binlog_statement(events: Iterable[Log_event], ctx: FormatContext | None = None) -> str:
    """`BINLOG '...'` carrying `events` in the file's format (`ctx`; a format description
    among the events sets it), in lines as mysqlbinlog wraps them."""
    ctx = ctx or FormatContext(MYSQL)
    data = bytearray()
    for event in events:
        if isinstance(event, Format_description_log_event):
            ctx = context_of(event)
        data += encode_event(event, ctx, 0)
    payload = base64.b64encode(bytes(data)).decode("ascii")
    return "BINLOG '\n" + "\n".join(textwrap.wrap(payload, _LINE)) + "\n'"


def decode_events(text: str) -> list[Log_event]:
    """The events of a BINLOG statement's string: 1149 when it is empty or not events,
    1575 when it is not base64 (the server's errors, in its order of checks). Without a
    format description in the statement, each event's checksum is recognised by its CRC."""
    compact = _WHITESPACE.sub("", text)
    if not compact:
        raise SqlError(ErrorCode.ER_SYNTAX_ERROR)
    try:
        # mysqlbinlog encodes each event on its own: the text is several base64 chunks,
        # each ended by its padding, which the server decodes one after the other.
        raw = b"".join(base64.b64decode(chunk, validate=True) for chunk in _CHUNK.findall(compact) if chunk)
    except (binascii.Error, ValueError):
        raise SqlError(ErrorCode.ER_BASE64_DECODE_ERROR) from None
    events: list[Log_event] = []
    ctx = FormatContext(MYSQL)
    position = 0
    try:
        while position < len(raw):
            size = unpack_header(raw[position : position + HEADER_LENGTH]).event_size
            if size < HEADER_LENGTH or position + size > len(raw):
                raise EventDecodeError("truncated event")
            data = raw[position : position + size]
            ctx.checksum_alg = int(size >= HEADER_LENGTH + CHECKSUM_LENGTH and event_crc(data[:-CHECKSUM_LENGTH]) == int.from_bytes(data[-CHECKSUM_LENGTH:], "little"))
            event = decode_event(data, ctx).event
            if isinstance(event, Format_description_log_event):
                ctx = context_of(event)
            events.append(event)
            position += size
    except UnmappedTableError as error:
        message = f"the {error.type_name} event names table id {error.table_id}, which no table map of the statement maps"
        raise SqlError(ErrorCode.ER_UNKNOWN_ERROR, message) from None
    except (EventDecodeError, ValueError, OverflowError):
        raise SqlError(ErrorCode.ER_SYNTAX_ERROR) from None
    return events
