"""The client stage against real servers: one scenario variant on a MariaDB master and replica.

Each session is its own connection, served by its own thread, so a statement that
waits for a lock does not stop the others: a step that has not finished within
`step_timeout` is recorded as blocked and the next step is sent; its result is
collected when it finishes. The run's outcome is a RunRecord, the same the simulator
produces, so the checker judges both alike.
"""

from __future__ import annotations

import queue
import shutil
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pymysql

from harness.observation import EventObservation
from harness.runner import SETUP_SESSION, RunRecord, SlaveSchemaResult, run_id_for
from harness.snapshot import ServerSnapshot, TableSnapshot
from master_sim.results import StepResult
from scenarios.model import Scenario
from server_sim.errors import Condition, ErrorCode
from server_sim.sysvars import VariableRegistry
from slave_sim.status import SlaveStatus

from .events import read_server_binlog
from .mariadb import MariaDBServer
from .replication import DATABASE, MASTER_LOG_FILE, ReplicationPair

ORACLE_SUFFIX = "@oracle"
BLOCKED = "lock wait"


def condition(level: str, code: int, message: str) -> Condition:
    return Condition(level, code, ErrorCode.name_of(code), message)


@dataclass
class _Job:
    result: StepResult
    done: threading.Event = field(default_factory=threading.Event)


class SessionWorker:
    """One client connection and the thread that sends its statements in order."""

    def __init__(self, name: str, server: MariaDBServer, clock: _StepClock) -> None:
        self.name = name
        self.connection = server.connect_scenario(DATABASE)
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT CONNECTION_ID()")
            self.connection_id = int(cursor.fetchone()[0])
        self._clock = clock
        self.killed = False
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._serve, name=f"session-{name}", daemon=True)
        self._thread.start()

    def submit(self, result: StepResult) -> _Job:
        job = _Job(result)
        self._idle.clear()
        self._jobs.put(job)
        return job

    @property
    def idle(self) -> bool:
        return self._idle.is_set() and self._jobs.empty()

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                self._run(job.result)
            finally:
                job.done.set()
                if self._jobs.empty():
                    self._idle.set()

    def _run(self, result: StepResult) -> None:
        with self.connection.cursor() as cursor:
            warnings = 0
            try:
                cursor.execute(result.sql)
                if cursor.description:
                    cursor.fetchall()
                result.affected_rows = max(cursor.rowcount, 0)
                warnings = cursor.warning_count
            except pymysql.err.MySQLError as error:
                if self.killed:  # it waited until the end and was killed: it never ran
                    result.status = "blocked"
                    return
                code = int(error.args[0]) if error.args and isinstance(error.args[0], int) else 0
                result.status = "error"
                result.error = condition("Error", code, str(error.args[-1]) if error.args else str(error))
            if result.blocked_by is not None:
                result.ran_after_step = self._clock.last_step
            # A statement that touches no table (BEGIN, COMMIT, SET, SELECT 1) leaves the previous
            # statement's warnings in place for SHOW WARNINGS: only its own count says it raised any.
            if result.status != "error" and not warnings:
                return
            try:
                cursor.execute("SHOW WARNINGS")
                result.notes = [condition(str(level), int(code), str(message)) for level, code, message in cursor.fetchall() if level != "Error"]
            except pymysql.err.MySQLError:
                pass  # the connection is gone (killed); the step's error says why

    def close(self) -> None:
        """Disconnect: the server rolls back the session's open transaction."""
        self._jobs.put(None)
        self._thread.join(timeout=5)
        try:
            self.connection.close()
        except pymysql.err.Error:
            pass


@dataclass
class _StepClock:
    last_step: int | None = None


@dataclass
class OracleRun:
    record: RunRecord
    events: list[EventObservation]
    server_version: str


class OracleClient:
    """Runs scenario variants on a ReplicationPair, resetting it before each."""

    def __init__(self, pair: ReplicationPair, step_timeout: float = 0.5, close_timeout: float = 30.0, binlog_dir: Path | None = None) -> None:
        self.pair = pair
        self.binlog_dir = binlog_dir  # where each run's master binlog files are kept; None: not kept
        self.step_timeout = step_timeout
        self.close_timeout = close_timeout
        self.registry = VariableRegistry(pair.flavor)
        with pair.master.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SELECT VERSION()")
            self.server_version = str(cursor.fetchone()[0])

    def run_variant(self, scenario: Scenario, variant: dict[str, str]) -> OracleRun:
        """One variant on the pair. A failure is the run's error, not the suite's: a server
        that died during the run (a kill, a crash) is reported as the run's error, and both
        servers are restarted for the next run. Ctrl-C and SIGTERM leave at once: the caller
        stops the servers, so sessions are not waited for."""
        label = scenario.variant_label(variant)
        record = RunRecord(run_id_for(scenario, label) + ORACLE_SUFFIX, scenario, variant, label, seed=0, flavor=self.pair.flavor.name)
        events: list[EventObservation] = []
        workers: dict[str, SessionWorker] = {}
        try:
            events = self._execute(scenario, variant, record, workers)
        except Exception:
            record.error = traceback.format_exc()
        deaths = self.pair.deaths()
        if deaths:
            record.error = "\n".join(deaths)
            for worker in workers.values():
                worker.close()
            self.pair.restart()
        else:
            self._close_all(workers)
        return OracleRun(record, events, self.server_version)

    def _execute(self, scenario: Scenario, variant: dict[str, str], record: RunRecord, workers: dict[str, SessionWorker]) -> list[EventObservation]:
        self.pair.reset(self.registry.validate(variant), self.registry.validate(scenario.slave_settings))
        clock = _StepClock()
        schema = SessionWorker(SETUP_SESSION, self.pair.master, clock)
        workers[SETUP_SESSION] = schema
        for sql in scenario.master_schema:
            result = StepResult(None, SETUP_SESSION, sql)
            self._send(schema, result)
            record.schema_steps.append(result)
        self._close_all({SETUP_SESSION: workers.pop(SETUP_SESSION)})
        record.schema_end = self.pair.wait_for_replica().executed_position
        self._run_slave_schema(scenario, record)
        for step in scenario.steps:
            result = StepResult(step.index, step.session, step.sql, disconnect=step.disconnect, reap=step.reap)
            record.steps.append(result)
            # Set before sending: a blocked step this one releases finishes while it runs.
            clock.last_step = step.index
            if step.disconnect:
                self._disconnect(workers, step.session)
                continue
            if step.reap:
                self._reap(workers.get(step.session))
                continue
            if step.session not in workers:
                workers[step.session] = SessionWorker(step.session, self.pair.master, clock)
            self._send(workers[step.session], result)
        self._close_all(workers)
        replica = self.pair.wait_for_replica()
        record.slave = SlaveStatus(
            running=replica.running,
            error=condition("Error", replica.error_code, replica.error_message) if replica.error_code is not None else None,
            applied_position=replica.executed_position,
        )
        with self.pair.master.connect() as connection, connection.cursor() as cursor:
            # From the start: the schema's events belong to the scenario and are compared too.
            events = read_server_binlog(cursor, self.pair.master.datadir, MASTER_LOG_FILE)
        record.master_snapshot = snapshot(self.pair.master)
        record.slave_snapshot = snapshot(self.pair.replica)
        record.server_binlogs = self._keep_binlogs(record.run_id)
        return events

    def _keep_binlogs(self, run_id: str) -> list[Path]:
        """Copies of the master's binlog files of this run (RESET MASTER started them) in
        binlog_dir/<run id>/, under the server's file names, for `rplharness replay`."""
        if self.binlog_dir is None:
            return []
        directory = self.binlog_dir / run_id
        directory.mkdir(parents=True, exist_ok=True)
        kept = []
        for path in self.pair.close_master_binlogs():
            shutil.copyfile(path, directory / path.name)
            kept.append(directory / path.name)
        return kept

    def _send(self, worker: SessionWorker, result: StepResult) -> None:
        job = worker.submit(result)
        if not job.done.wait(self.step_timeout):
            result.blocked_by = BLOCKED

    def _disconnect(self, workers: dict[str, SessionWorker], name: str) -> None:
        """A disconnect step: the client closes the connection once its statements have
        run, and the run goes on when the server has ended the session (rolled its
        transaction back, dropped its temporary tables, released its locks, logged what it
        logs then), as mysqltest's include/wait_until_disconnected.inc waits."""
        worker = workers.pop(name, None)
        if worker is None:
            return
        deadline = time.monotonic() + self.close_timeout
        while not worker.idle and time.monotonic() < deadline:
            time.sleep(0.01)
        worker.close()
        with self.pair.master.connect() as connection, connection.cursor() as cursor:
            while time.monotonic() < deadline:
                cursor.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %s", (worker.connection_id,))
                if not cursor.fetchone()[0]:
                    return
                time.sleep(0.01)
        raise RuntimeError(f"session {name} (connection {worker.connection_id}) still on the server {self.close_timeout}s after its disconnect")

    def _reap(self, worker: SessionWorker | None) -> None:
        """A reap step: the client waits for the answers to what it sent, as mysqltest's
        `reap` does; a statement still waiting for a lock gets the server's 1205 when its
        lock wait timeout (the pair's, 10 s) passes."""
        if worker is None:
            return
        deadline = time.monotonic() + self.close_timeout
        while not worker.idle:
            if time.monotonic() > deadline:
                raise RuntimeError(f"session {worker.name} still waiting {self.close_timeout}s after its reap step")
            time.sleep(0.01)

    def _run_slave_schema(self, scenario: Scenario, record: RunRecord) -> None:
        with self.pair.replica.connect_scenario(DATABASE) as connection, connection.cursor() as cursor:
            cursor.execute("SET sql_log_bin = 0")
            for sql in scenario.slave_schema:
                outcome = SlaveSchemaResult(sql)
                try:
                    cursor.execute(sql)
                except pymysql.err.MySQLError as error:
                    outcome.error = condition("Error", int(error.args[0]), str(error.args[-1]))
                record.slave_schema.append(outcome)

    def _close_all(self, workers: dict[str, SessionWorker]) -> None:
        """Disconnect every session as a client going away would, idle ones first.

        A session still waiting for a lock is disconnected once the sessions holding
        the lock have gone; one still busy after `close_timeout` is killed.
        """
        deadline = time.monotonic() + self.close_timeout
        while workers:
            for name in [name for name, worker in workers.items() if worker.idle]:
                workers.pop(name).close()
            if not workers:
                break
            if time.monotonic() > deadline:
                with self.pair.master.connect() as connection, connection.cursor() as cursor:
                    for worker in workers.values():
                        worker.killed = True
                        try:
                            cursor.execute(f"KILL {worker.connection_id}")
                        except pymysql.err.MySQLError:
                            pass
                deadline = time.monotonic() + self.close_timeout
            time.sleep(0.01)


def snapshot(server: MariaDBServer) -> ServerSnapshot:
    """Every base table of the scenario's database, rows in the server's own order."""
    tables: dict[str, TableSnapshot] = {}
    with server.connect(DATABASE) as connection, connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
            (DATABASE,),
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f"SELECT * FROM `{name}`")
            columns = tuple(description[0] for description in cursor.description)
            tables[name.lower()] = TableSnapshot(name.lower(), columns, tuple(tuple(row) for row in cursor.fetchall()))
    return ServerSnapshot(tables)
