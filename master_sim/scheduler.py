"""The session scheduler: each session's statements in a queue, run in order.

A statement that must wait for a lock stays at the head of its session's queue, and the
session's later statements queue behind it; whenever a statement ends, waiting sessions
get another try, as a transaction's end releases its locks.
"""

from __future__ import annotations

from collections.abc import Callable

from server_sim.binlog.file import BinlogWriter
from server_sim.errors import ErrorCode, SqlError, not_supported
from server_sim.session import Session

from .disconnect import end_session
from .pipeline import StatementPipeline
from .results import StepResult
from .sessions import MasterSession
from .transactions import TransactionControl


class Scheduler:
    """Sessions, their queues, and the wake-up of blocked statements."""

    def __init__(
        self,
        pipeline: StatementPipeline,
        transactions: TransactionControl,
        writer: BinlogWriter,
        new_session: Callable[[], Session],
    ) -> None:
        self.pipeline = pipeline
        self.transactions = transactions
        self.writer = writer
        self._new_session = new_session
        self.sessions: dict[str, MasterSession] = {}
        self.results: list[StepResult] = []
        self._last_step: int | None = None

    def session(self, name: str) -> MasterSession:
        """The session of that name, connecting it on first use."""
        if name not in self.sessions:
            self.sessions[name] = MasterSession(name, self._new_session())
        return self.sessions[name]

    def submit(self, session_name: str, sql: str, index: int | None = None) -> StepResult:
        """Send one statement; it runs now, or waits behind its session's blocked statement."""
        master_session = self.session(session_name)
        result = self._record(StepResult(index, session_name, sql))
        if master_session.queue:
            # It waits behind its session's waiting statement: unanswered, as that one is.
            result.blocked_by = master_session.queue[0].blocked_by
        master_session.queue.append(result)
        if len(master_session.queue) == 1:
            self._drain(master_session)
        self._wake()
        return result

    def disconnect(self, session_name: str, index: int | None = None) -> StepResult:
        """The session's client closes its connection: the server ends the session, and
        the name connects anew, as a fresh session, at its next statement. A session whose
        statement still waits for a lock cannot go before it ran: refused (1235)."""
        result = self._record(StepResult(index, session_name, "", disconnect=True))
        master_session = self.sessions.get(session_name)
        if master_session is None:
            return result
        if master_session.queue:
            result.fail(not_supported(f"a disconnect of session {session_name} while its statement waits for a lock"))
            return result
        del self.sessions[session_name]
        start = self.writer.position
        end_session(self.transactions, master_session)
        if self.writer.position > start:
            result.binlog_ranges.append((start, self.writer.position))
        self._wake()
        return result

    def reap(self, session_name: str, index: int | None = None) -> StepResult:
        """The session's client waits for the answers to what it sent. A statement still
        waiting for a lock then waits in vain (no other session runs meanwhile): it fails
        with 1205 once the lock wait timeout passes. The server undoes the statement, not
        its transaction (innodb_rollback_on_timeout is off; the simulator undid its changes
        when it stopped to wait), and the session's next statements run, each waited for
        in turn."""
        result = self._record(StepResult(index, session_name, "", reap=True))
        master_session = self.sessions.get(session_name)
        while master_session is not None and master_session.queue:
            waiting = master_session.queue.popleft()
            waiting.fail(SqlError(ErrorCode.ER_LOCK_WAIT_TIMEOUT))
            waiting.ran_after_step = self._last_step
            self._drain(master_session)
        self._wake()
        return result

    def _record(self, result: StepResult) -> StepResult:
        """A step's result among the run's; a scenario step is now the last one sent."""
        self.results.append(result)
        self._last_step = result.index if result.index is not None else self._last_step
        return result

    def disconnect_all(self) -> None:
        """Disconnect every session: open transactions roll back, waiting steps then run;
        what still waits at the end never ran (blocked)."""
        for _ in range(len(self.sessions) + 2):
            # Idle sessions disconnect, including those whose waiting statement just ran.
            for master_session in self.sessions.values():
                if not master_session.queue:
                    self.transactions.rollback(master_session)
                    self.transactions.locks.unlock_tables(master_session.name)
            if not any(ms.queue for ms in self.sessions.values()):
                break
            self._wake()
        for master_session in self.sessions.values():
            for result in master_session.queue:
                result.status = "blocked"
            master_session.queue.clear()
            self.transactions.disconnect(master_session)

    def _drain(self, master_session: MasterSession) -> bool:
        """Run queued statements of one session until one has to wait; True if any ran."""
        progressed = False
        while master_session.queue:
            result = master_session.queue[0]
            start = self.writer.position
            ran = self.pipeline.execute(master_session, result)
            if self.writer.position > start:
                result.binlog_ranges.append((start, self.writer.position))
            if not ran:
                return progressed
            if result.blocked_by is not None:
                result.ran_after_step = self._last_step
            master_session.queue.popleft()
            progressed = True
        return progressed

    def _wake(self) -> None:
        """Give waiting sessions another try after locks were released."""
        progressed = True
        while progressed:
            progressed = False
            for master_session in self.sessions.values():
                if master_session.queue and master_session.queue[0].blocked_by is not None:
                    progressed = self._drain(master_session) or progressed
