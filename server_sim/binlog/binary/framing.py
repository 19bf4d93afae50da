"""The bodies of the events that frame transactions and files: MariaDB's GTID (opens
each event group), Gtid_list and Binlog_checkpoint; MySQL's GTID / Anonymous_gtid and
Previous_gtids."""

from __future__ import annotations

import struct

from ..control_events import (
    FL_GROUP_COMMIT_ID,
    Anonymous_gtid_log_event,
    Binlog_checkpoint_log_event,
    Gtid_list_log_event,
    Gtid_log_event,
    Mysql_gtid_log_event,
    Previous_gtids_log_event,
)
from ..events import Log_event
from .codec import EventCodec, FormatContext, header_fields, raw, text
from .header import EventHeader
from .packing import Cursor, EventDecodeError, i64, lenenc, u8, u32, u64

_MYSQL_GTID_HEAD = struct.Struct("<B16sqBqq")
_TOP_BIT_7 = 1 << 55
_TOP_BIT_4 = 1 << 31


# The body's fixed part: seq_no, domain_id, flags2 and the commit id or zero padding. What
# MariaDB 10.11 writes after flags2 (the XA id, flags_extra with the number of extra engines
# of a multi-engine transaction, the ALTER's sequence number) starts right after the commit
# id, or after flags2 without one, and a shorter body is padded with zeros to this length.
_GTID_BODY_LENGTH = 19


def encode_mariadb_gtid(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Gtid_log_event)
    body = u64(event.seq_no) + u32(event.domain_id) + u8(event.flags2)
    body += (u64(event.commit_id) if event.flags2 & FL_GROUP_COMMIT_ID else b"") + event.extra
    return body.ljust(_GTID_BODY_LENGTH, b"\0")


def decode_mariadb_gtid(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    seq_no, domain_id, flags2 = cursor.u64(), cursor.u32(), cursor.u8()
    commit_id = cursor.u64() if flags2 & FL_GROUP_COMMIT_ID else 0
    extra = cursor.rest()
    if not flags2 & FL_GROUP_COMMIT_ID and extra == bytes(_GTID_BODY_LENGTH - 13):
        extra = b""  # the padding alone
    return Gtid_log_event(**header_fields(header), seq_no=seq_no, domain_id=domain_id, flags2=flags2, commit_id=commit_id, extra=extra)


def encode_gtid_list(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Gtid_list_log_event)
    out = u32(len(event.gtids) | event.list_flags << 28)
    return out + b"".join(u32(domain) + u32(server) + u64(seq) for domain, server, seq in event.gtids) + event.trailer


def decode_gtid_list(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    word = cursor.u32()
    count = word & 0x0FFFFFFF
    if count * 16 > cursor.remaining:
        raise EventDecodeError(f"a GTID list of {count} entries in {cursor.remaining} bytes")
    gtids = tuple((cursor.u32(), cursor.u32(), cursor.u64()) for _ in range(count))
    return Gtid_list_log_event(**header_fields(header), gtids=gtids, list_flags=word >> 28, trailer=cursor.rest())


def encode_checkpoint(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Binlog_checkpoint_log_event)
    name = raw(event.log_file)
    return u32(len(name)) + name


def decode_checkpoint(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    return Binlog_checkpoint_log_event(**header_fields(header), log_file=text(cursor.take(cursor.u32())))


def encode_mysql_gtid(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Mysql_gtid_log_event)
    out = u8(event.gtid_flags) + event.sid + i64(event.gno) + u8(event.lt_type) + i64(event.last_committed) + i64(event.sequence_number)
    if event.original_commit_timestamp is None:
        out += event.immediate_commit_timestamp.to_bytes(7, "little")
    else:
        out += (event.immediate_commit_timestamp | _TOP_BIT_7).to_bytes(7, "little") + event.original_commit_timestamp.to_bytes(7, "little")
    out += lenenc(event.transaction_length)
    if event.original_server_version is None:
        out += u32(event.immediate_server_version)
    else:
        out += u32(event.immediate_server_version | _TOP_BIT_4) + u32(event.original_server_version)
    return out + event.trailer


def decode_mysql_gtid(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    flags, sid, gno, lt_type, last_committed, sequence_number = cursor.unpack(_MYSQL_GTID_HEAD)
    fields: dict[str, object] = {"gtid_flags": flags, "sid": sid, "gno": gno, "lt_type": lt_type}
    fields.update(last_committed=last_committed, sequence_number=sequence_number)
    if cursor.remaining:
        immediate = int.from_bytes(cursor.take(7), "little")
        fields["immediate_commit_timestamp"] = immediate & (_TOP_BIT_7 - 1)
        if immediate & _TOP_BIT_7:
            fields["original_commit_timestamp"] = int.from_bytes(cursor.take(7), "little")
        fields["transaction_length"] = cursor.lenenc()
        version = cursor.u32()
        fields["immediate_server_version"] = version & (_TOP_BIT_4 - 1)
        if version & _TOP_BIT_4:
            fields["original_server_version"] = cursor.u32()
    cls = Anonymous_gtid_log_event if header.type_code == 34 else Mysql_gtid_log_event
    return cls(**header_fields(header), **fields, trailer=cursor.rest())


def encode_previous_gtids(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Previous_gtids_log_event)
    out = u64(len(event.gtid_sets))
    for sid, intervals in event.gtid_sets:
        out += sid + u64(len(intervals)) + b"".join(i64(start) + i64(end) for start, end in intervals)
    return out


def decode_previous_gtids(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    sets = []
    for _ in range(min(cursor.u64(), len(body))):
        sid, count = cursor.take(16), cursor.u64()
        if count * 16 > cursor.remaining:
            raise EventDecodeError(f"{count} GTID intervals in {cursor.remaining} bytes")
        sets.append((sid, tuple((cursor.i64(), cursor.i64()) for _ in range(count))))
    if cursor.remaining:
        raise EventDecodeError(f"{cursor.remaining} bytes after the last GTID set")
    return Previous_gtids_log_event(**header_fields(header), gtid_sets=tuple(sets))


CODECS: dict[int, EventCodec] = {
    33: EventCodec(encode_mysql_gtid, decode_mysql_gtid),
    34: EventCodec(encode_mysql_gtid, decode_mysql_gtid),
    35: EventCodec(encode_previous_gtids, decode_previous_gtids),
    161: EventCodec(encode_checkpoint, decode_checkpoint),
    162: EventCodec(encode_mariadb_gtid, decode_mariadb_gtid),
    163: EventCodec(encode_gtid_list, decode_gtid_list),
}
