"""Events as base64 text: the payload of a `BINLOG '...'` statement.

mysqlbinlog prints the events it cannot show as SQL (the format description, table maps
and row events) as BINLOG statements whose text is the events' bytes in base64; a server
that runs such a statement applies the events as a replica would. Here the bytes are the
events' lines in this project's binlog file encoding, so the statements `binlog show
--base64-output=AUTO` prints run on the simulated master.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import textwrap
from collections.abc import Iterable

from ..errors import ErrorCode, SqlError
from .events import Log_event, known_event_types
from .file import decode, encode

_WHITESPACE = re.compile(r"\s+")
_LINE = 76  # mysqlbinlog's base64 line length
_MAX_TYPE_CODE = max(known_event_types().values())


def binlog_statement(events: Iterable[Log_event]) -> str:
    """`BINLOG '...'` carrying `events`, in lines as mysqlbinlog wraps them."""
    payload = base64.b64encode("".join(encode(event) for event in events).encode("utf-8")).decode("ascii")
    return "BINLOG '\n" + "\n".join(textwrap.wrap(payload, _LINE)) + "\n'"


def decode_events(text: str) -> list[Log_event]:
    """The events of a BINLOG statement's string: 1149 when it is empty or not events,
    1575 when it is not base64 (the server's errors, in its order of checks)."""
    compact = _WHITESPACE.sub("", text)
    if not compact:
        raise SqlError(ErrorCode.ER_SYNTAX_ERROR)
    try:
        raw = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise SqlError(ErrorCode.ER_BASE64_DECODE_ERROR) from None
    events = []
    try:
        for line in raw.decode("utf-8").splitlines():
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not an event")
            events.append(decode(record, _MAX_TYPE_CODE))
    except (ValueError, TypeError, KeyError, UnicodeDecodeError):
        raise SqlError(ErrorCode.ER_SYNTAX_ERROR) from None
    return events
