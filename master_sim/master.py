"""The master: runs a scenario's sessions step by step and writes the binlog.

It wires together the scheduler (sessions, queues, lock waits), the statement pipeline
(parse, analyze, decide_logging_format, lock, execute, log, respond), transaction control
and the binlog writer. A step that needs a lock another transaction holds waits, and runs
as soon as that transaction ends; the session's later steps queue behind it.
"""

from __future__ import annotations

from pathlib import Path

from server_sim.binlog.binary.header import CHECKSUM_ALGORITHMS
from server_sim.binlog.file import BinlogWriter
from server_sim.engines import EngineRegistry
from server_sim.flavor import Flavor
from server_sim.server import Server, ServerIdentity
from server_sim.storage import Storage

from .binlog_cache import EventFactory
from .decision import TransactionState
from .locks import LockManager
from .pipeline import StatementPipeline
from .results import RowEffect, StepResult
from .scheduler import Scheduler
from .sessions import MasterSession
from .statement_log import StatementLogger
from .transactions import TransactionControl, transaction_state, unix_time

MASTER_SERVER_ID = 1


class Master:
    """A master server with its sessions, lock manager and binlog."""

    def __init__(
        self, flavor: Flavor, settings: dict[str, str], binlog_path: Path, seed: int, engines: EngineRegistry | None = None, replica_connected: bool = True
    ) -> None:
        self.flavor = flavor
        self.server = Server(flavor, ServerIdentity(MASTER_SERVER_ID, "master", seed), engines)
        self.server.global_variables.update(settings)
        self.locks = LockManager()
        self.events = EventFactory(flavor, MASTER_SERVER_ID, self.server.catalog.database)
        self.binlog_path = binlog_path
        checksum = CHECKSUM_ALGORITHMS[self.server.global_variables["binlog_checksum"]]
        self.writer = BinlogWriter(binlog_path, flavor.server_version, flavor.name, MASTER_SERVER_ID, unix_time(self.server.now()), checksum)
        # Every row change a statement made, in the order they happened: what traces a
        # row that differs on the slave back to the step that wrote it.
        self.effects: list[RowEffect] = []
        self.transactions = TransactionControl(self.server, self.writer, self.events, self.locks)
        logger = StatementLogger(self.server, flavor, self.writer, self.events)
        # The binlog files RESET MASTER ended, oldest first (the server deletes them); with
        # a replica connected RESET MASTER is refused: what the replica reads next is undefined.
        self.reset_binlogs: list[Path] = []
        reset = None if replica_connected else self._reset_binlog
        self.pipeline = StatementPipeline(self.server, flavor, self.locks, self.transactions, logger, self.effects, reset)
        self.executor = self.pipeline.executor
        self.applier = self.pipeline.applier
        self.scheduler = Scheduler(self.pipeline, self.transactions, self.writer, lambda: self.server.new_session("root@localhost"))

    @property
    def storage(self) -> Storage:
        return self.server.storage

    @property
    def sessions(self) -> dict[str, MasterSession]:
        return self.scheduler.sessions

    @property
    def results(self) -> list[StepResult]:
        return self.scheduler.results

    def submit(self, session_name: str, sql: str, index: int | None = None) -> StepResult:
        """Send one statement; it runs now, or waits behind its session's blocked statement."""
        return self.scheduler.submit(session_name, sql, index)

    def disconnect(self, session_name: str, index: int | None = None) -> StepResult:
        """A disconnect step: the server ends the session (master_sim.disconnect)."""
        return self.scheduler.disconnect(session_name, index)

    def reap(self, session_name: str, index: int | None = None) -> StepResult:
        """A reap step: the client waits for its answers; a statement still waiting for a
        lock fails with 1205 (Scheduler.reap)."""
        return self.scheduler.reap(session_name, index)

    def _reset_binlog(self) -> None:
        """RESET MASTER's effect on the binlog: a new file at the same path; the one it
        ends is kept beside it, numbered, for whoever checks what the master logged."""
        path = self.binlog_path
        kept = path.with_name(f"{path.stem}.before-reset-{len(self.reset_binlogs) + 1}{path.suffix}")
        self.writer.reset(kept, unix_time(self.server.now()))
        self.reset_binlogs.append(kept)

    def finish(self) -> None:
        """Disconnect every session: open transactions roll back, waiting steps then run."""
        self.scheduler.disconnect_all()
        self.writer.close()

    def close(self) -> None:
        self.server.close()

    def transaction_state(self, session_name: str) -> TransactionState:
        """What decide_logging_format gets from the session for its next statement."""
        return transaction_state(self.scheduler.session(session_name))
