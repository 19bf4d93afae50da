"""One real MariaDB server process that the harness starts, owns and stops.

The harness never uses the system service: each server gets a fresh datadir, a socket
and a port on 127.0.0.1 in its own temporary directory, and is stopped by the PID the
harness started. If the harness itself dies, the kernel kills the server too
(PR_SET_PDEATHSIG), so no server outlives the command that started it.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pymysql
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_delay, wait_exponential

_SEARCH_PATH = ("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin")
_PR_SET_PDEATHSIG = 1
ROOT_USER = "root"


class ServerError(RuntimeError):
    """A server could not be installed, started, reached or stopped; carries its error-log tail."""


def find_program(*names: str) -> str:
    """The first of `names` on PATH or in the sbin/bin directories Debian installs to."""
    search = os.pathsep.join([os.environ.get("PATH", ""), *_SEARCH_PATH])
    for name in names:
        found = shutil.which(name, path=search)
        if found:
            return found
    raise ServerError(
        f"{' / '.join(names)} not found; install MariaDB 10.11 (apt-get install mariadb-server mariadb-client)"
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGKILL the server when the harness process dies."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


@dataclass
class MariaDBServer:
    """A mariadbd with its own datadir, socket, port and error log, under `root`."""

    name: str
    server_id: int
    options: tuple[str, ...] = ()
    root: Path | None = None
    port: int = 0
    start_timeout: float = 60.0
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)

    @property
    def datadir(self) -> Path:
        return self._root / "data"

    @property
    def tmpdir(self) -> Path:
        """The server's own temporary directory: a mariadbd starting up deletes every `#sql*`
        file in its tmpdir, which would break another server's install running in a shared /tmp."""
        return self._root / "tmp"

    @property
    def socket_path(self) -> Path:
        return self._root / "mysqld.sock"

    @property
    def error_log(self) -> Path:
        return self._root / "error.log"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def _root(self) -> Path:
        if self.root is None:
            raise ServerError(f"{self.name}: not started")
        return self.root

    def start(self) -> None:
        """Install a datadir, start mariadbd, and wait until it accepts connections."""
        if self.root is None:
            # Short path: a Unix socket path must stay under 108 bytes.
            self.root = Path(tempfile.mkdtemp(prefix=f"rplh-{self.name}-"))
        self._install()
        self.port = self.port or free_port()
        command = [
            find_program("mariadbd", "mysqld"),
            "--no-defaults",
            f"--datadir={self.datadir}",
            f"--tmpdir={self.tmpdir}",
            f"--socket={self.socket_path}",
            f"--port={self.port}",
            "--bind-address=127.0.0.1",
            f"--pid-file={self._root / 'mysqld.pid'}",
            f"--log-error={self.error_log}",
            f"--server-id={self.server_id}",
            "--skip-name-resolve",
            "--plugin-load-add=ha_blackhole.so",
            "--plugin-load-add=ha_archive.so",
            "--innodb-buffer-pool-size=32M",
            "--innodb-log-file-size=16M",
            "--innodb-flush-log-at-trx-commit=2",
            "--skip-innodb-doublewrite",
            "--performance-schema=OFF",
            *self.options,
        ]
        if os.geteuid() == 0:
            command.append("--user=root")
        self.process = subprocess.Popen(  # noqa: S603 - our own argument list
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches the harness, which stops the server itself
            preexec_fn=_die_with_parent,
        )
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise

    def _install(self) -> None:
        self.tmpdir.mkdir(parents=True, exist_ok=True)
        if (self.datadir / "mysql").is_dir():
            return
        command = [
            find_program("mariadb-install-db", "mysql_install_db"),
            "--no-defaults",
            f"--datadir={self.datadir}",
            f"--tmpdir={self.tmpdir}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            "--skip-name-resolve",
        ]
        if os.geteuid() == 0:
            command.append("--user=root")
        result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
        if result.returncode != 0:
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
            raise ServerError(f"{self.name}: mariadb-install-db failed (exit {result.returncode}):\n{tail}")

    def _wait_until_ready(self) -> None:
        def attempt() -> None:
            if self.process is not None and self.process.poll() is not None:
                raise ServerError(f"{self.name}: mariadbd exited with {self.process.returncode} while starting")
            self.connect().close()

        try:
            for attempt_state in Retrying(
                stop=stop_after_delay(self.start_timeout),
                wait=wait_exponential(multiplier=0.05, max=1.0),
                retry=retry_if_exception_type(pymysql.err.OperationalError),
                reraise=False,
            ):
                with attempt_state:
                    attempt()
        except RetryError as error:
            raise ServerError(
                f"{self.name}: no connection after {self.start_timeout:.0f}s ({error.last_attempt.exception()})\n{self.error_log_tail()}"
            ) from None
        except ServerError as error:
            raise ServerError(f"{error}\n{self.error_log_tail()}") from None

    def connect(self, database: str | None = None, autocommit: bool = True, read_timeout: float | None = None) -> pymysql.connections.Connection:
        """A root connection over the server's Unix socket."""
        return pymysql.connect(
            unix_socket=str(self.socket_path),
            user=ROOT_USER,
            database=database,
            autocommit=autocommit,
            connect_timeout=5,
            read_timeout=read_timeout,
            charset="utf8mb4",
        )

    def error_log_tail(self, lines: int = 20) -> str:
        try:
            text = self.error_log.read_text(errors="replace")
        except OSError:
            return f"(no error log at {self.error_log})"
        tail = "\n".join(text.strip().splitlines()[-lines:])
        return f"--- last lines of {self.error_log} ---\n{tail}"

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the process this object started (TERM, then KILL) and remove its directory."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

