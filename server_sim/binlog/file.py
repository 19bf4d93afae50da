"""The binlog file, in the servers' binary format (v4): magic bytes, a Format_description,
then the events, each with its 19-byte header and (binlog_checksum=CRC32) a CRC32.

An event's position is its byte offset in the file and `end_log_pos` where the next one
starts, as on a real server. The reader follows the file's own Format_description, so it
reads what a real MySQL 8.0 or MariaDB 10.11 server wrote; whatever it cannot read (cut
or corrupt bytes, a checksum mismatch, an event type it does not know without the
ignorable flag) is a BinlogCorruptError naming the file and the event's position.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .binary.codec import MARIADB, MYSQL, FormatContext
from .binary.format_description import (
    FORMAT_DESCRIPTION_TYPE,
    body_length_ok,
    context_of,
    format_description,
)
from .binary.header import (
    BINLOG_CHECKSUM_ALG_OFF,
    CHECKSUM_LENGTH,
    HEADER_LENGTH,
    LOG_EVENT_BINLOG_IN_USE_F,
    MAGIC,
    unpack_header,
    verify_checksum,
)
from .binary.packing import EventDecodeError
from .binary.registry import (
    decode_event,
    encode_body,
    encode_event,
    event_size,
    frame_body,
)
from .binary.transaction_framing import GroupFraming
from .binary.transaction_payload import (
    TRANSACTION_PAYLOAD_TYPE,
    inner_events,
    split_inner_events,
)
from .control_events import Stop_log_event
from .events import Format_description_log_event, Log_event

_FLAGS_OFFSET = 4 + 17  # the Format_description's flags, after the magic bytes


class BinlogCorruptError(Exception):
    """The file cannot be read at `position`: truncated, corrupt, or not supported."""

    def __init__(self, path: Path, position: int, reason: str, truncated: bool = False) -> None:
        self.path = path
        self.position = position
        self.reason = reason
        # The event at `position` runs past the end of the file: a file still being written
        # (or cut there) ends inside it, what comes before it reads.
        self.truncated = truncated
        super().__init__(f"{path}: corrupt binlog event at position {position}: {reason}")


@dataclass(frozen=True)
class PositionedEvent:
    position: int
    end_log_pos: int
    event: Log_event


def flavor_format(flavor: str) -> str:
    """The binary format family of a flavor name (mysql-8.0, mariadb-10.11)."""
    return MARIADB if flavor.lower().startswith("mariadb") else MYSQL


def _version_number(server_version: str) -> int:
    match = re.match(r"(\d+)\.(\d+)\.(\d+)", server_version)
    return int(match.group(1)) * 10000 + int(match.group(2)) * 100 + int(match.group(3)) if match else 0


class BinlogWriter:
    """Appends event groups to a binlog file, framed as the flavor's server frames them."""

    def __init__(self, path: Path, server_version: str, flavor: str, server_id: int, timestamp: int, checksum_alg: int = 1) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._server_id = server_id
        self._description = (flavor_format(flavor), server_version, server_id, checksum_alg)
        self._open(timestamp)

    def _open(self, timestamp: int) -> None:
        """Start the file: its header events, its groups numbered from 1."""
        self._file = self.path.open("wb")
        self._last_timestamp = timestamp
        binlog_format, server_version, server_id, checksum_alg = self._description
        description = format_description(binlog_format, server_version, server_id, timestamp, checksum_alg)
        description.flags |= LOG_EVENT_BINLOG_IN_USE_F
        self.ctx = context_of(description)
        self._framing = GroupFraming(self.ctx, server_id, _version_number(server_version))
        self._file.write(MAGIC)
        self.position = len(MAGIC)
        self._emit([description, *self._framing.file_start(timestamp, self.path.name)])
        self._file.flush()

    def reset(self, kept_as: Path, timestamp: int) -> None:
        """RESET MASTER: the file ends where it is, and a new one starts at the same path
        with its own header and GTIDs from 1 again. The server deletes the old file; here
        it is kept as `kept_as` for whoever checks what the master logged before."""
        self._file.seek(_FLAGS_OFFSET)
        self._file.write(bytes((0,)))
        self._file.close()
        self.path.rename(kept_as)
        self._open(timestamp)

    def _emit(self, events: Iterable[Log_event]) -> None:
        for event in events:
            self.write(event)

    def write(self, event: Log_event) -> int:
        """Append one event as it is, with no framing; returns its position."""
        position = self.position
        data = encode_event(event, self.ctx, position)
        self._file.write(data)
        self.position += len(data)
        return position

    def write_group(self, events: Iterable[Log_event]) -> None:
        """One event group (a transaction, or a statement outside one), with the flavor's GTID event."""
        events = list(events)
        if not events:
            return
        self._last_timestamp = events[-1].timestamp
        gtid, rest = self._framing.group(events)
        bodies = [encode_body(event, self.ctx) for event in rest]
        if gtid is None:
            gtid = self._framing.mysql_gtid(rest[0], sum(event_size(body, self.ctx) for body in bodies))
        out = bytearray()
        for event, body in [(gtid, encode_body(gtid, self.ctx)), *zip(rest, bodies)]:
            out += frame_body(event, body, self.ctx, self.position + len(out))
        self._file.write(out)
        self.position += len(out)
        self._file.flush()

    def close(self) -> None:
        """End the file as a server that shuts down does: a Stop event, BINLOG_IN_USE cleared."""
        if self._file.closed:
            return
        self._emit([Stop_log_event(server_id=self._server_id, timestamp=self._last_timestamp)])
        self._file.seek(_FLAGS_OFFSET)
        self._file.write(bytes((0,)))
        self._file.close()


class BinlogReader:
    """A binlog file read whole, driven by its Format_description: a replica reads one
    transaction at a time from its position, and each read starts from an event boundary
    found by walking the headers. BinlogCorruptError when the file does not start right."""

    def __init__(self, path: Path, data: bytes | None = None) -> None:
        """`data`: the file's bytes when the caller has them already (`path` names them)."""
        self.path = path
        self.data = path.read_bytes() if data is None else data
        if self.data[:4] != MAGIC:
            raise BinlogCorruptError(path, 0, "not a binary log file (no FE 62 69 6E magic bytes)")
        self.ctx = FormatContext(MYSQL)
        self._starts: set[int] = set()  # positions known to start an event
        self.description = self._decode(len(MAGIC))
        if not isinstance(self.description.event, Format_description_log_event):
            raise BinlogCorruptError(path, len(MAGIC), "the first event is not a Format_description")

    def _decode(self, position: int) -> PositionedEvent:
        data = self.data
        try:
            header = unpack_header(data, position)
            size = header.event_size
            if size < HEADER_LENGTH or position + size > len(data):
                raise EventDecodeError(f"event of {size} bytes, {len(data) - position} left in the file (truncated)")
            if position == len(MAGIC) and (header.type_code != FORMAT_DESCRIPTION_TYPE or not body_length_ok(size)):
                raise EventDecodeError("the first event is not a Format_description")
            event = decode_event(data[position : position + size], self.ctx, header).event
        except (EventDecodeError, ValueError, OverflowError) as error:
            raise BinlogCorruptError(self.path, position, str(error), self._runs_past_end(position)) from None
        if isinstance(event, Format_description_log_event):
            self.ctx = context_of(event)
        self._starts.add(position + size)
        return PositionedEvent(position, position + size, event)

    def _runs_past_end(self, position: int) -> bool:
        """Whether the event at `position` is cut by the end of the file: its header is, or
        a header that reads true (its end_log_pos is where its size ends) gives a size past it."""
        data = self.data
        if position + HEADER_LENGTH > len(data):
            return True
        header = unpack_header(data, position)
        end = position + header.event_size
        return end > len(data) and header.log_pos == end

    def _boundary(self, start: int) -> int:
        """`start` if an event starts there (walking the headers from the first event)."""
        if start in self._starts:
            return start
        position = self.description.end_log_pos
        data = self.data
        while position < start and position + HEADER_LENGTH <= len(data):
            size = unpack_header(data, position).event_size
            if size < HEADER_LENGTH:
                break
            position += size
        if position != start:
            reason = "beyond the end of the file" if start > len(data) else "not the start of an event"
            raise BinlogCorruptError(self.path, start, f"the position is {reason}")
        return position

    def events(self, start: int = 0) -> Iterator[PositionedEvent]:
        """The events in order from the one at byte `start` on (the Format_description
        first when `start` is 0); BinlogCorruptError at the first bad event."""
        if start <= len(MAGIC):
            yield self.description
        position = self._boundary(max(start, self.description.end_log_pos))
        while position < len(self.data):
            decoded = self._decode_all(position)
            yield from decoded
            position = decoded[-1].end_log_pos

    def _decode_all(self, position: int) -> list[PositionedEvent]:
        """The event at `position`, or the events a Transaction_payload there holds, each
        at the payload's position: a replica applies the transaction inside as one."""
        header = unpack_header(self.data, position) if position + HEADER_LENGTH <= len(self.data) else None
        if header is None or header.type_code != TRANSACTION_PAYLOAD_TYPE:
            return [self._decode(position)]
        end = position + header.event_size
        body_end = end - (CHECKSUM_LENGTH if self.ctx.checksum else 0)
        inner_ctx = dataclasses.replace(self.ctx, checksum_alg=BINLOG_CHECKSUM_ALG_OFF)
        try:
            if end > len(self.data) or body_end < position + HEADER_LENGTH:
                raise EventDecodeError(f"event of {header.event_size} bytes, {len(self.data) - position} left in the file (truncated)")
            if self.ctx.checksum:
                verify_checksum(self.data[position:end])
            inner = split_inner_events(inner_events(self.data[position + HEADER_LENGTH : body_end]))
            events = [decode_event(raw, inner_ctx).event for raw in inner]
        except (EventDecodeError, ValueError, OverflowError) as error:
            raise BinlogCorruptError(self.path, position, f"Transaction_payload: {error}", self._runs_past_end(position)) from None
        self._starts.add(end)
        return [PositionedEvent(position, end, event) for event in events]

    def close(self) -> None:
        self.data = b""

    def __enter__(self) -> BinlogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_binlog(path: Path, start: int = 0) -> Iterator[PositionedEvent]:
    """The events of a binlog file in order, from the event at byte `start` on (the
    Format_description event is read first in any case, as a real reader does);
    BinlogCorruptError at the first bad event."""
    with BinlogReader(path) as reader:
        yield from reader.events(start)
