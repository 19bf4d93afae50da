"""The registry of event bodies: type code -> how its body is written and read.

A body is what follows the 19-byte common header, without the checksum. Reading is
driven by the file's own Format_description (`FormatContext`): its post-header lengths,
its checksum algorithm, its flavor, and the table maps seen so far, which the row
events need to read their values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..events import Log_event, Table_map_log_event
from .header import BINLOG_CHECKSUM_ALG_CRC32, EventHeader

MYSQL = "mysql"
MARIADB = "mariadb"


@dataclass
class FormatContext:
    """What a file's Format_description says about the events after it."""

    flavor: str  # MYSQL or MARIADB
    post_header_lengths: tuple[int, ...] = ()
    checksum_alg: int = BINLOG_CHECKSUM_ALG_CRC32
    table_maps: dict[int, Table_map_log_event] = field(default_factory=dict)

    @property
    def checksum(self) -> bool:
        return self.checksum_alg == BINLOG_CHECKSUM_ALG_CRC32

    @property
    def mariadb(self) -> bool:
        return self.flavor == MARIADB

    def post_header_length(self, type_code: int, default: int) -> int:
        """The post-header length the file declares for `type_code` (`default` when it
        declares none, as for a file without a Format_description yet)."""
        lengths = self.post_header_lengths
        return lengths[type_code - 1] if 0 < type_code <= len(lengths) else default


@dataclass(frozen=True)
class EventCodec:
    encode_body: Callable[[Log_event, FormatContext], bytes]
    decode_body: Callable[[bytes, EventHeader, FormatContext], Log_event]


def header_fields(header: EventHeader) -> dict[str, int]:
    """The Log_event fields the common header holds."""
    return {"server_id": header.server_id, "timestamp": header.timestamp, "flags": header.flags}


def text(data: bytes) -> str:
    """Names and statements: UTF-8, with bytes that are not kept as they are (written back whole)."""
    return data.decode("utf-8", "surrogateescape")


def raw(value: str) -> bytes:
    return value.encode("utf-8", "surrogateescape")
