"""What one run looked like from outside, in a form both a simulator run and a real server give.

An observation holds only what a replication engineer can see on a real server: each
step's result and diagnostics, the binlog's events, the replica's state, the tables on
both sides and the verdict. The fidelity check compares two observations of one run;
recorded observations of the real server live as JSON in `expected/` directories.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import asdict, dataclass, field
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path

from master_sim.results import StepResult
from server_sim.binlog.events import (
    OPTION_AUTO_IS_NULL,
    OPTION_NO_FOREIGN_KEY_CHECKS,
    OPTION_RELAXED_UNIQUE_CHECKS,
    Annotate_rows_log_event,
    Intvar_log_event,
    Query_log_event,
    Rows_log_event,
    Rows_query_log_event,
    Table_map_log_event,
    User_var_log_event,
    type_name_of,
)
from scenarios.writer import write_atomically
from server_sim.binlog.control_events import Gtid_log_event
from server_sim.binlog.file import read_binlog

from .judgement import Judgement
from .runner import RunRecord
from .snapshot import ServerSnapshot, canonical


OBSERVATION_FORMAT_VERSION = 1
UNSAFE_NOTE = 1592

# The server's event type names, as SHOW BINLOG EVENTS prints them, to one name per kind;
# events not listed (Format_desc, Gtid_list, Binlog_checkpoint, Rotate, Stop) are not compared.
EVENT_KINDS: dict[str, str] = {
    "Query": "Query",
    "Intvar": "Intvar",
    "RAND": "Rand",
    "User var": "User_var",
    "Xid": "Xid",
    "Table_map": "Table_map",
    "Write_rows": "Write_rows",
    "Write_rows_v1": "Write_rows",
    "Update_rows": "Update_rows",
    "Update_rows_v1": "Update_rows",
    "Delete_rows": "Delete_rows",
    "Delete_rows_v1": "Delete_rows",
    "Annotate_rows": "Annotate_rows",
    "Rows_query": "Rows_query",
}
_NUMERIC_TYPE = re.compile(r"^(TINY|SHORT|SMALL|MEDIUM|LONG|INT|BIGINT|LONGLONG|INT24|DECIMAL|NEWDECIMAL|FLOAT|DOUBLE|REAL|BIT|YEAR|ENUM|SET)", re.I)
_USE_PREFIX = re.compile(r"^use `[^`]*`; ", re.I)


@dataclass(frozen=True)
class Diagnostic:
    """A Note or Warning a step raised; for 1592 the unsafe reason's sentence."""

    level: str
    code: int
    reason: str = ""


@dataclass(frozen=True)
class StepObservation:
    index: int
    session: str
    status: str  # ok | error | blocked (never finished)
    error: int | None
    diagnostics: tuple[Diagnostic, ...]
    blocked: bool  # it waited for a lock before finishing (or never finished)


Image = dict[int, object]  # column number (1-based, as mysqlbinlog's @N) -> canonical value


@dataclass(frozen=True)
class RowImage:
    before: Image | None
    after: Image | None


@dataclass(frozen=True)
class EventObservation:
    """One binlog event: its kind, what identifies it (statement, table, variable), its rows."""

    kind: str
    info: str = ""
    rows: tuple[RowImage, ...] = ()

    @property
    def header(self) -> str:
        return f"{self.kind}: {self.info}" if self.info else self.kind


@dataclass(frozen=True)
class TableObservation:
    columns: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]  # sorted: the tables compare as multisets


@dataclass
class Observation:
    scenario: str
    variant: str
    system: str  # "simulator" or the real server's version string
    steps: list[StepObservation] = field(default_factory=list)
    events: list[EventObservation] = field(default_factory=list)
    replica_running: bool = True
    replica_error: int | None = None
    master_tables: dict[str, TableObservation] = field(default_factory=dict)
    slave_tables: dict[str, TableObservation] = field(default_factory=dict)
    verdict: str = ""
    error: str | None = None  # the run could not be carried out (simulator exception, server failure)

    def to_json(self) -> dict[str, object]:
        document = asdict(self)
        document["events"] = [
            {
                "kind": event.kind,
                "info": event.info,
                "rows": [{"before": _image_json(row.before), "after": _image_json(row.after)} for row in event.rows],
            }
            for event in self.events
        ]
        return {"format_version": OBSERVATION_FORMAT_VERSION, **document}

    @classmethod
    def from_json(cls, document: dict[str, object]) -> Observation:
        version = document.get("format_version")
        if version != OBSERVATION_FORMAT_VERSION:
            raise ValueError(f"format_version {version!r}, expected {OBSERVATION_FORMAT_VERSION}")
        return cls(
            scenario=str(document["scenario"]),
            variant=str(document["variant"]),
            system=str(document["system"]),
            steps=[
                StepObservation(
                    index=int(step["index"]),
                    session=str(step["session"]),
                    status=str(step["status"]),
                    error=step["error"],
                    diagnostics=tuple(Diagnostic(**d) for d in step["diagnostics"]),
                    blocked=bool(step["blocked"]),
                )
                for step in document["steps"]
            ],
            events=[
                EventObservation(
                    str(event["kind"]),
                    str(event["info"]),
                    tuple(RowImage(_image_from_json(row["before"]), _image_from_json(row["after"])) for row in event["rows"]),
                )
                for event in document["events"]
            ],
            replica_running=bool(document["replica_running"]),
            replica_error=document["replica_error"],
            master_tables=_tables_from_json(document["master_tables"]),
            slave_tables=_tables_from_json(document["slave_tables"]),
            verdict=str(document["verdict"]),
            error=document.get("error"),
        )


def _image_json(image: Image | None) -> dict[str, object] | None:
    return None if image is None else {str(number): value for number, value in sorted(image.items())}


def _image_from_json(image: dict[str, object] | None) -> Image | None:
    return None if image is None else {int(number): value for number, value in image.items()}


def _tables_from_json(tables: dict[str, dict[str, list]]) -> dict[str, TableObservation]:
    return {
        name: TableObservation(tuple(table["columns"]), tuple(tuple(row) for row in table["rows"]))
        for name, table in tables.items()
    }


def save_observation(observation: Observation, path: Path) -> None:
    """Write atomically: a recording is never left half-written."""
    write_atomically(path, json.dumps(observation.to_json(), indent=1, sort_keys=False, default=str) + "\n")


def load_observation(path: Path) -> Observation:
    try:
        return Observation.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a recorded observation: {error}") from None


# -- building observations -------------------------------------------------------------------


def unsafe_reason(message: str) -> str:
    """The reason sentence of a Note 1592: the text after "BINLOG_FORMAT = STATEMENT. "."""
    _, separator, reason = message.partition("BINLOG_FORMAT = STATEMENT. ")
    return reason.strip() if separator else message.strip()


def diagnostic(level: str, code: int, message: str) -> Diagnostic:
    return Diagnostic(level, code, unsafe_reason(message) if code == UNSAFE_NOTE else "")


def observe_step(step: StepResult) -> StepObservation:
    return StepObservation(
        index=step.index or 0,
        session=step.session,
        status=step.status,
        error=step.error.code if step.error is not None else None,
        diagnostics=tuple(sorted((diagnostic(n.level, n.code, n.message) for n in step.notes if n.level != "Error"), key=_diagnostic_order)),
        blocked=step.blocked_by is not None or step.status == "blocked",
    )


def _diagnostic_order(item: Diagnostic) -> tuple[int, str, str]:
    return (item.code, item.level, item.reason)


def observe_tables(snapshot: ServerSnapshot | None) -> dict[str, TableObservation]:
    if snapshot is None:
        return {}
    tables = {}
    for name, table in sorted(snapshot.tables.items()):
        rows = [tuple(canonical(value) for value in row) for row in table.rows]
        rows.sort(key=lambda row: json.dumps(row, default=str))
        tables[name] = TableObservation(tuple(column.lower() for column in table.columns), tuple(rows))
    return tables


def observe_run(record: RunRecord, judgement: Judgement, events: list[EventObservation], system: str) -> Observation:
    """The observation of a run, whichever system carried it out."""
    slave = record.slave
    return Observation(
        scenario=record.scenario.name,
        variant=record.label,
        system=system,
        steps=[observe_step(step) for step in record.steps],
        events=events,
        replica_running=slave is None or slave.running,
        replica_error=slave.error.code if slave is not None and slave.error is not None else None,
        master_tables=observe_tables(record.master_snapshot),
        slave_tables=observe_tables(record.slave_snapshot),
        verdict=judgement.verdict.value,
        error=record.error.strip().splitlines()[-1] if record.error else None,
    )


def image_value(value: object, type_text: str) -> object:
    """A row-image value in canonical form; numeric columns compare by number, not by text
    (an ENUM's index; a SET's bitmask, which mariadb-binlog prints as b'...' bits)."""
    if isinstance(value, str) and value.startswith("b'") and type_text.upper().startswith("SET"):
        bits = value[2:].rstrip("'")
        value = str(int.from_bytes(bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8)), "little"))
    if isinstance(value, str) and _NUMERIC_TYPE.match(type_text):
        try:
            return canonical(Decimal(value))
        except InvalidOperation:
            return value
    return canonical(value)


def statement_text(query: str) -> str:
    """A logged statement as compared: without a `use db;` prefix, whitespace collapsed."""
    return " ".join(_USE_PREFIX.sub("", query.strip()).split())


# The checks MariaDB's SHOW BINLOG EVENTS names before a statement its session ran with
# them switched off (Query_log_event::pack_info), in its order.
_SHOWN_OPTIONS = (
    (OPTION_NO_FOREIGN_KEY_CHECKS, "foreign_key_checks=0"),
    (OPTION_AUTO_IS_NULL, "sql_auto_is_null=1"),
    (OPTION_RELAXED_UNIQUE_CHECKS, "unique_checks=0"),
)


def _option_prefix(flags2: int) -> str:
    """`set foreign_key_checks=0, ...; ` as the real server's Info column shows a Query event."""
    shown = [text for bit, text in _SHOWN_OPTIONS if flags2 & bit]
    return f"set {', '.join(shown)}; " if shown else ""


def simulator_events(binlog: Path | None, ranges: Sequence[tuple[int, int]] | None = None) -> list[EventObservation]:
    """The events of a simulator binlog, in the form a real server's are read into; with
    `ranges`, only those whose position lies in one of the byte ranges (a step's)."""
    if binlog is None or not binlog.is_file():
        return []
    observed: list[EventObservation] = []
    table_maps: dict[int, Table_map_log_event] = {}
    for positioned in read_binlog(binlog):
        event = positioned.event
        kind = EVENT_KINDS.get(type_name_of(event))
        if ranges is not None and not any(start <= positioned.position < end for start, end in ranges):
            continue
        if isinstance(event, Gtid_log_event) and not event.standalone:
            observed.append(EventObservation("Query", "BEGIN"))  # as a real MariaDB binlog is observed
        if kind is None:
            continue
        if isinstance(event, Query_log_event):
            # MariaDB opens a transaction with a Gtid event, where no options are shown.
            prefix = _option_prefix(event.flags2) if event.query != "BEGIN" else ""
            observed.append(EventObservation(kind, statement_text(prefix + event.query)))
        elif isinstance(event, (Annotate_rows_log_event, Rows_query_log_event)):
            observed.append(EventObservation(kind, statement_text(event.query)))
        elif isinstance(event, Table_map_log_event):
            table_maps[event.table_id] = event
            observed.append(EventObservation(kind, f"{event.database}.{event.table}"))
        elif isinstance(event, Rows_log_event):
            table_map = table_maps.get(event.table_id)
            types = [column.type for column in table_map.columns] if table_map else []
            name = f"{table_map.database}.{table_map.table}" if table_map else f"table id {event.table_id}"
            rows = tuple(
                RowImage(
                    _image(row.before, event.columns_before, types) if row.before is not None else None,
                    _image(row.after, event.columns_after, types) if row.after is not None else None,
                )
                for row in event.rows
            )
            observed.append(EventObservation(kind, name, rows))
        elif isinstance(event, Intvar_log_event):
            observed.append(EventObservation(kind, event.info()))
        elif isinstance(event, User_var_log_event):
            observed.append(EventObservation(kind, f"@{event.name}"))
        else:
            observed.append(EventObservation(kind))
    return observed


def _image(values: list[object], present: list[bool], types: list[str]) -> Image:
    numbers = [index for index, included in enumerate(present, start=1) if included]
    return {
        number: image_value(_signed(binlog_text(value), types[number - 1] if number - 1 < len(types) else ""), types[number - 1] if number - 1 < len(types) else "")
        for number, value in zip(numbers, values)
    }


# Bits of each integer type: an UNSIGNED column's value beyond the signed range is
# compared as the signed number of its width.
_INTEGER_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "INTEGER": 32, "BIGINT": 64}


def _signed(value: object, type_text: str) -> object:
    """An integer as mariadb-binlog prints it first: signed at its type's width (the
    unsigned value follows in parentheses; the table map carries no sign to tell which)."""
    words = type_text.upper().split()
    if not isinstance(value, int) or "UNSIGNED" not in words:
        return value
    bits = _INTEGER_BITS.get(words[0].split("(")[0])
    if bits is None or value < 1 << (bits - 1):
        return value
    return value - (1 << bits)


def binlog_text(value: object) -> object:
    """A string value whose charset the binlog left open, as text: UTF-8 when its bytes
    are, else latin1 (a real server's binlog and the simulator's are read alike)."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.decode("latin-1")
    return value


def timestamp_text(seconds: str) -> str:
    """A TIMESTAMP as mysqlbinlog prints it (seconds since the epoch) in the servers' UTC."""
    whole, _, fraction = seconds.partition(".")
    moment = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=int(whole), microseconds=int(fraction.ljust(6, "0")[:6] or 0))
    return moment.isoformat(sep=" ")
