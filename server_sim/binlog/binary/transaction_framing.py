"""The events a server writes around each event group and at the ends of a file.

MariaDB opens every group with a GTID event (there is no BEGIN query; a DDL statement's
GTID is flagged standalone) and starts a file with Gtid_list and Binlog_checkpoint.
MySQL with gtid_mode=OFF writes an Anonymous_gtid event before each transaction (its
commit-order numbers and the transaction's length in bytes), keeps the BEGIN query
(flagged SUPPRESS_USE), and starts a file with Previous_gtids. Both end a file the
server shuts down with a Stop event.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..control_events import (
    FL_ALLOW_PARALLEL,
    FL_DDL,
    FL_STANDALONE,
    FL_TRANSACTIONAL,
    Anonymous_gtid_log_event,
    Binlog_checkpoint_log_event,
    Gtid_list_log_event,
    Gtid_log_event,
    Previous_gtids_log_event,
)
from ..events import Log_event, Query_log_event, Xid_log_event
from .codec import FormatContext
from .header import LOG_EVENT_SUPPRESS_USE_F
from .packing import lenenc

# The body of MySQL's Anonymous_gtid event before its transaction length: the 42-byte
# post-header and the 7-byte commit timestamp; the server version follows it.
_MYSQL_GTID_FIXED = 42 + 7 + 4


def _is_begin(event: Log_event) -> bool:
    return isinstance(event, Query_log_event) and event.query == "BEGIN"


class GroupFraming:
    """Numbers the groups of one file and adds the events each flavor frames them with."""

    def __init__(self, ctx: FormatContext, server_id: int, server_version: int) -> None:
        self.ctx = ctx
        self.server_id = server_id
        self.server_version = server_version
        self.sequence = 0

    def file_start(self, timestamp: int, log_name: str) -> list[Log_event]:
        header = {"server_id": self.server_id, "timestamp": timestamp}
        if self.ctx.mariadb:
            # An empty list, as a fresh server's first file has it (with its 2 trailing zero bytes).
            return [Gtid_list_log_event(**header, trailer=bytes(2)), Binlog_checkpoint_log_event(**header, log_file=log_name)]
        return [Previous_gtids_log_event(**header)]

    def group(self, events: Sequence[Log_event]) -> tuple[Log_event | None, list[Log_event]]:
        """The group's GTID event (None: MySQL's, made once the group's length is known by
        `mysql_gtid`) and its events, BEGIN dropped (MariaDB) or flagged (MySQL)."""
        self.sequence += 1
        first = events[0]
        if self.ctx.mariadb:
            if _is_begin(first):
                transactional = isinstance(events[-1], Xid_log_event)
                flags = FL_ALLOW_PARALLEL | (FL_TRANSACTIONAL if transactional else 0)
                rest = list(events[1:])
            else:
                flags, rest = FL_STANDALONE | FL_ALLOW_PARALLEL | FL_DDL, list(events)
            gtid = Gtid_log_event(server_id=first.server_id, timestamp=first.timestamp, seq_no=self.sequence, flags2=flags)
            return gtid, rest
        if _is_begin(first):
            first.flags |= LOG_EVENT_SUPPRESS_USE_F  # the event written is this event: flagged as MySQL flags it
        return None, list(events)

    def mysql_gtid(self, first: Log_event, group_size: int) -> Anonymous_gtid_log_event:
        """MySQL's Anonymous_gtid for a group of `group_size` bytes (without this event)."""
        overhead = 19 + _MYSQL_GTID_FIXED + (4 if self.ctx.checksum else 0)
        length = group_size + overhead + 1
        length = group_size + overhead + len(lenenc(length))
        length = group_size + overhead + len(lenenc(length))
        return Anonymous_gtid_log_event(
            server_id=first.server_id,
            timestamp=first.timestamp,
            last_committed=self.sequence - 1,
            sequence_number=self.sequence,
            immediate_commit_timestamp=first.timestamp * 1_000_000,
            transaction_length=length,
            immediate_server_version=self.server_version,
        )
