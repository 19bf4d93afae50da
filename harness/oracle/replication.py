"""A real master and replica, wired with CHANGE MASTER TO, reset between scenario runs.

Resetting (drop user databases, RESET MASTER, RESET SLAVE, re-point the replica) costs
a fraction of a second, where restarting both servers would cost seconds per run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pymysql
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_delay, wait_exponential

from server_sim.flavor import Flavor
from server_sim.sysvars import VariableRegistry

from .accounts import Account
from .mariadb import MariaDBServer, ServerError

DATABASE = "test"  # the simulator's default schema; scenarios name tables without one
MASTER_LOG_FILE = "master-bin.000001"
REPLICATION_USER = "repl"
_SYSTEM_DATABASES = frozenset({"mysql", "information_schema", "performance_schema", "sys"})


def _typed(text: str) -> object:
    """A value SHOW VARIABLES printed, as SET GLOBAL takes it: numeric variables refuse a string."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


class _NotCaughtUp(Exception):
    """The replica has not executed the master's binlog up to the target yet."""


@dataclass(frozen=True)
class ReplicaStatus:
    """The replica's SQL thread after catching up: running, or stopped with an error."""

    running: bool
    error_code: int | None  # None while running; Last_SQL_Errno (possibly 0) once stopped
    error_message: str
    executed_position: int


class ReplicationPair:
    """A master and a replica started by the harness; a context manager that always stops them."""

    def __init__(self, flavor: Flavor, catch_up_timeout: float = 30.0, lock_wait_timeout: int = 10, master_options: tuple[str, ...] = ()) -> None:
        self.flavor = flavor
        self.catch_up_timeout = catch_up_timeout
        common = (
            "--default-time-zone=+00:00",
            f"--innodb-lock-wait-timeout={lock_wait_timeout}",
            f"--lock-wait-timeout={lock_wait_timeout}",
        )
        # master_options: more mariadbd options for the master, e.g. --log-bin-compress=ON or
        # --binlog-checksum=NONE, for runs whose kept binlogs are to be of that kind.
        self.master = MariaDBServer("master", 1, (*common, "--log-bin=master-bin", "--binlog-format=MIXED", *master_options))
        self.replica = MariaDBServer(
            "replica", 2, (*common, "--relay-log=relay-bin", "--skip-slave-start", "--log-bin=replica-bin")
        )
        self._saved: dict[str, dict[str, object]] = {}
        self._shown: dict[str, dict[str, str]] = {}  # SHOW GLOBAL VARIABLES of each server as started
        self._replication = Account(REPLICATION_USER)

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> ReplicationPair:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        try:
            self.master.start()
            self.replica.start()
            self._execute(
                self.master,
                "SET sql_log_bin = 0",
                f"CREATE USER {REPLICATION_USER}@'127.0.0.1' IDENTIFIED BY '{self._replication.password}'",
                f"GRANT REPLICATION SLAVE ON *.* TO {REPLICATION_USER}@'127.0.0.1'",
            )
            self._saved = {server.name: self._globals(server) for server in (self.master, self.replica)}
            self._shown = {server.name: self._shown_globals(server) for server in (self.master, self.replica)}
            self.reset()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Both servers told to shut down at once, then each waited for: one slow to stop
        (a server still starting up) does not hold the other's shutdown back."""
        for server in (self.replica, self.master):
            server.terminate()
        for server in (self.replica, self.master):
            server.stop()

    def deaths(self) -> list[str]:
        """`the master died during this run (killed by SIGKILL)` for each server that is no
        longer running, with its error log's last lines; empty while both run."""
        return [
            f"the {server.name} died during this run ({death}); both servers were restarted for the runs after it\n{server.error_log_tail()}"
            for server in (self.master, self.replica)
            if (death := server.death()) is not None
        ]

    def restart(self) -> None:
        """Both servers anew, with fresh datadirs: after one died, nothing of it is trusted."""
        self.stop()
        self.start()

    # -- between runs ---------------------------------------------------------------------

    def reset(self, master_settings: Mapping[str, str] | None = None, replica_settings: Mapping[str, str] | None = None) -> None:
        """Both servers as new: no user databases, empty binlog, replica re-pointed at its start.

        Each run's settings are applied with SET GLOBAL after the saved defaults are
        restored, so one run's settings never leak into the next.
        """
        self._execute(self.replica, "STOP SLAVE", "RESET SLAVE ALL", tolerate={1200})
        for server in (self.replica, self.master):
            self._drop_user_databases(server)
            self._restore_globals(server)
        self._execute(self.master, "RESET MASTER")
        self._execute(self.replica, "RESET MASTER")
        self._set_globals(self.master, master_settings or {})
        self._set_globals(self.replica, replica_settings or {})
        for server in (self.master, self.replica):
            self._execute(server, "SET sql_log_bin = 0", f"CREATE DATABASE {DATABASE}")
        self._execute(
            self.replica,
            f"CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = {self.master.port}, "
            f"MASTER_USER = '{REPLICATION_USER}', MASTER_PASSWORD = '{self._replication.password}', "
            f"MASTER_LOG_FILE = '{MASTER_LOG_FILE}', MASTER_LOG_POS = 4, MASTER_USE_GTID = no",
            "START SLAVE",
        )

    def _drop_user_databases(self, server: MariaDBServer) -> None:
        with server.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SET sql_log_bin = 0")
            cursor.execute("SHOW DATABASES")
            for (name,) in cursor.fetchall():
                if name.lower() not in _SYSTEM_DATABASES:
                    cursor.execute(f"DROP DATABASE `{name}`")

    def _server_name(self, variable: str) -> str:
        return self.flavor.server_variable_names.get(variable, variable)

    def _globals(self, server: MariaDBServer) -> dict[str, object]:
        """The global values of every variable a scenario may set, to restore between runs."""
        saved = {}
        with server.connect() as connection, connection.cursor() as cursor:
            for variable in VariableRegistry(self.flavor).defaults():
                name = self._server_name(variable)
                try:
                    cursor.execute(f"SELECT @@GLOBAL.{name}")
                except pymysql.err.MySQLError:
                    continue  # session-only or read-only on this server
                saved[name] = cursor.fetchone()[0]
        return saved

    @staticmethod
    def _shown_globals(server: MariaDBServer) -> dict[str, str]:
        with server.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL VARIABLES")
            return {str(name): str(value) for name, value in cursor.fetchall()}

    def _restore_globals(self, server: MariaDBServer) -> None:
        """The saved values of the variables a scenario may set, then every other global
        that differs from the server's start (the scenario account may SET GLOBAL the
        binlog's settings: max_binlog_size, log_bin_compress ...); the GTID state is the
        binlog's, which RESET MASTER resets."""
        with server.connect() as connection, connection.cursor() as cursor:
            for name, value in self._saved.get(server.name, {}).items():
                try:
                    cursor.execute(f"SET GLOBAL {name} = %s", (value,))
                except pymysql.err.MySQLError:
                    continue  # read-only globals (hostname, version) were saved for reference only
            started = self._shown.get(server.name, {})
            for name, value in self._shown_globals(server).items():
                if name in started and value != started[name] and not name.startswith("gtid_"):
                    try:
                        cursor.execute(f"SET GLOBAL {name} = %s", (_typed(started[name]),))
                    except pymysql.err.MySQLError:
                        continue  # read-only: it changed by itself

    def _set_globals(self, server: MariaDBServer, settings: Mapping[str, str]) -> None:
        with server.connect() as connection, connection.cursor() as cursor:
            for variable, value in settings.items():
                name = self._server_name(variable)
                try:
                    cursor.execute(f"SET GLOBAL {name} = %s", (value,))
                except pymysql.err.MySQLError as error:
                    raise ServerError(f"{server.name}: SET GLOBAL {name} = {value!r} failed: {error.args[-1]}") from None

    @staticmethod
    def _execute(server: MariaDBServer, *statements: str, tolerate: frozenset[int] | set[int] = frozenset()) -> None:
        with server.connect() as connection, connection.cursor() as cursor:
            for sql in statements:
                try:
                    cursor.execute(sql)
                except pymysql.err.MySQLError as error:
                    if error.args and error.args[0] in tolerate:
                        continue  # e.g. 1200: STOP SLAVE before the first CHANGE MASTER
                    raise ServerError(f"{server.name}: {sql}: {error.args[-1]}\n{server.error_log_tail()}") from None

    # -- during a run ---------------------------------------------------------------------

    def close_master_binlogs(self) -> list[Path]:
        """The master's binlog files since the last reset, closed: FLUSH BINARY LOGS ends
        the current one with its Rotate (and clears its in-use flag); the new, empty file
        it opens is not among them."""
        with self.master.connect() as connection, connection.cursor() as cursor:
            cursor.execute("FLUSH BINARY LOGS")
            cursor.execute("SHOW BINARY LOGS")
            names = [str(row[0]) for row in cursor.fetchall()]
        return [self.master.datadir / name for name in names[:-1]]

    def master_position(self) -> tuple[str, int]:
        with self.master.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SHOW MASTER STATUS")
            row = cursor.fetchone()
        return str(row[0]), int(row[1])

    def replica_status(self) -> dict[str, object]:
        with self.replica.connect() as connection, connection.cursor(pymysql.cursors.DictCursor) as cursor:
            cursor.execute("SHOW SLAVE STATUS")
            return cursor.fetchone() or {}

    def wait_for_replica(self) -> ReplicaStatus:
        """Wait until the replica executed everything the master logged, or its SQL thread stopped."""
        target_file, target_position = self.master_position()

        def check() -> ReplicaStatus:
            status = self.replica_status()
            sql_running = status.get("Slave_SQL_Running") == "Yes"
            error_code = int(status.get("Last_SQL_Errno") or 0)
            executed = int(status.get("Exec_Master_Log_Pos") or 0)
            if not sql_running:  # stopped by an error (MariaDB may report it with Last_SQL_Errno 0)
                return ReplicaStatus(False, error_code, str(status.get("Last_SQL_Error") or ""), executed)
            io_error = int(status.get("Last_IO_Errno") or 0)
            if io_error:
                raise ServerError(f"replica I/O thread failed with {io_error}: {status.get('Last_IO_Error')}")
            if status.get("Relay_Master_Log_File") == target_file and executed >= target_position:
                return ReplicaStatus(sql_running, None, "", executed)
            raise _NotCaughtUp()

        try:
            for attempt in Retrying(
                stop=stop_after_delay(self.catch_up_timeout),
                wait=wait_exponential(multiplier=0.005, max=0.2),
                retry=retry_if_exception_type(_NotCaughtUp),
                reraise=False,
            ):
                with attempt:
                    return check()
        except RetryError:
            status = self.replica_status()
            raise ServerError(
                f"replica did not reach {target_file}:{target_position} within {self.catch_up_timeout:.0f}s "
                f"(executed {status.get('Relay_Master_Log_File')}:{status.get('Exec_Master_Log_Pos')}, "
                f"IO {status.get('Slave_IO_Running')}, SQL {status.get('Slave_SQL_Running')})\n{self.replica.error_log_tail()}"
            ) from None
        raise AssertionError("unreachable")
