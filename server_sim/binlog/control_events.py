"""The events that frame transactions and files: GTIDs, GTID lists, checkpoints, Rotate
and Stop. Class names are the servers' own; MySQL's GTID event is Mysql_gtid_log_event
here, MariaDB's keeping the name Gtid_log_event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .events import Log_event

# MariaDB Gtid_log_event flags2.
FL_STANDALONE = 1
FL_GROUP_COMMIT_ID = 2
FL_TRANSACTIONAL = 4
FL_ALLOW_PARALLEL = 8
FL_WAITED = 16
FL_DDL = 32


@dataclass
class Stop_log_event(Log_event):
    """Written when the server shuts down: the file ends here without a Rotate."""

    type_code: ClassVar[int] = 3
    type_name: ClassVar[str] = "Stop"


@dataclass
class Rotate_log_event(Log_event):
    """The last event of a file the server closed: where the next file starts."""

    type_code: ClassVar[int] = 4
    type_name: ClassVar[str] = "Rotate"

    position: int = 4
    new_log_ident: str = ""

    def info(self) -> str:
        return f"{self.new_log_ident};pos={self.position}"


@dataclass
class Mysql_gtid_log_event(Log_event):
    """MySQL's GTID event, before each transaction: its GTID and commit-order data."""

    type_code: ClassVar[int] = 33
    type_name: ClassVar[str] = "Gtid"

    gtid_flags: int = 1  # FLAG_MAY_HAVE_SBR
    sid: bytes = bytes(16)
    gno: int = 0
    lt_type: int = 2
    last_committed: int = 0
    sequence_number: int = 1
    immediate_commit_timestamp: int = 0  # microseconds
    original_commit_timestamp: int | None = None  # None: the same as the immediate one
    transaction_length: int = 0
    immediate_server_version: int = 0
    original_server_version: int | None = None
    trailer: bytes = b""  # what later versions add after these fields, as read

    def info(self) -> str:
        return "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'" if self.type_code == 34 else f"SET @@SESSION.GTID_NEXT= '{_uuid(self.sid)}:{self.gno}'"


@dataclass
class Anonymous_gtid_log_event(Mysql_gtid_log_event):
    """The GTID event of a server with gtid_mode=OFF, MySQL's default."""

    type_code: ClassVar[int] = 34
    type_name: ClassVar[str] = "Anonymous_Gtid"


@dataclass
class Previous_gtids_log_event(Log_event):
    """MySQL: the GTIDs written in earlier files, after the Format_description."""

    type_code: ClassVar[int] = 35
    type_name: ClassVar[str] = "Previous_gtids"

    # (server uuid, ((start, end exclusive), ...)) per source.
    gtid_sets: tuple[tuple[bytes, tuple[tuple[int, int], ...]], ...] = ()


@dataclass
class Binlog_checkpoint_log_event(Log_event):
    """MariaDB: the oldest binlog file crash recovery still needs."""

    type_code: ClassVar[int] = 161
    type_name: ClassVar[str] = "Binlog_checkpoint"

    log_file: str = ""

    def info(self) -> str:
        return self.log_file


@dataclass
class Gtid_log_event(Log_event):
    """MariaDB's GTID event: opens each event group (there is no BEGIN query)."""

    type_code: ClassVar[int] = 162
    type_name: ClassVar[str] = "Gtid"

    seq_no: int = 0
    domain_id: int = 0
    flags2: int = FL_STANDALONE
    commit_id: int = 0  # with FL_GROUP_COMMIT_ID
    extra: bytes = b""  # XA data and flags_extra, as read

    @property
    def standalone(self) -> bool:
        return bool(self.flags2 & FL_STANDALONE)

    def info(self) -> str:
        gtid = f"{self.domain_id}-{self.server_id}-{self.seq_no}"
        return f"GTID {gtid}" if self.standalone else f"BEGIN GTID {gtid}"


@dataclass
class Gtid_list_log_event(Log_event):
    """MariaDB: the last GTID of each replication domain in earlier files."""

    type_code: ClassVar[int] = 163
    type_name: ClassVar[str] = "Gtid_list"

    gtids: tuple[tuple[int, int, int], ...] = ()  # (domain_id, server_id, seq_no)
    list_flags: int = 0  # the count's top 4 bits
    trailer: bytes = b""  # bytes after the entries: MariaDB 10.11 writes 2 zero bytes after an empty list

    def info(self) -> str:
        return "[" + ",".join(f"{d}-{s}-{n}" for d, s, n in self.gtids) + "]"


def _uuid(sid: bytes) -> str:
    h = sid.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


# The events that frame groups and files rather than carry changes (MariaDB's GTID event
# aside, which stands for the BEGIN it replaces).
FRAMING_EVENTS: tuple[type[Log_event], ...] = (
    Stop_log_event,
    Rotate_log_event,
    Mysql_gtid_log_event,
    Previous_gtids_log_event,
    Binlog_checkpoint_log_event,
    Gtid_list_log_event,
)
