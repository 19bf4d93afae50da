"""One real MariaDB server process that the harness starts, owns and stops.

The harness never uses the system service: each server gets a fresh datadir, a socket
and a port on 127.0.0.1 in its own temporary directory, and is stopped by the PID the
harness started. If the harness itself dies, the kernel kills the server too
(PR_SET_PDEATHSIG), so no server outlives the command that started it.

Scenario SQL is untrusted, so the server is a sandbox: `secure_file_priv` names an
empty directory of its own that the server cannot write, `local_infile` is off, its
plugin directory holds only the engines the harness loads (so INSTALL SONAME finds
nothing else), it listens on 127.0.0.1 only, and when the harness runs as root it runs
as `nobody`. Scenario sessions connect with the restricted account of accounts.py.
"""

from __future__ import annotations

import ctypes
import functools
import os
import pwd
import shutil
import signal
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pymysql
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_delay, wait_exponential

from .accounts import ADMIN_USER, SCENARIO_USER, Account, create_admin, restrict_scenario_account
from .workdir import make_workdir

_SEARCH_PATH = ("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin")
_PR_SET_PDEATHSIG = 1
PLUGINS = ("ha_blackhole.so", "ha_archive.so")  # the engines scenarios use beside InnoDB and MyISAM
UNPRIVILEGED_USER = "nobody"


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


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Runs in a child before exec, after it took its user (a change of user would clear
    the setting): `sig` to the child when the harness process (the thread that started it)
    dies, so no server outlives the command."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)


def server_user() -> pwd.struct_passwd | None:
    """The user mariadbd and its installer run as when the harness runs as root: `nobody`,
    which owns nothing the server could read or write beyond its own directory; None
    (the harness's own user) otherwise."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        raise ServerError(f"no user {UNPRIVILEGED_USER!r} to run mariadbd as (the harness runs as root)") from None


@functools.cache
def system_plugin_dir() -> Path:
    """The directory the installed mariadbd loads plugins from by default."""
    command = [find_program("mariadbd", "mysqld"), "--no-defaults", "--verbose", "--help"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    for line in result.stdout.splitlines():
        name, _, value = line.partition(" ")
        if name == "plugin-dir" and value.strip():
            return Path(value.strip())
    raise ServerError(f"{command[0]} --verbose --help names no plugin-dir")


def _as_user(user: pwd.struct_passwd | None) -> dict[str, object]:
    """Popen arguments that run a child as `user` (no supplementary groups)."""
    return {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def _death(returncode: int) -> str:
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return "shut down" if returncode == 0 else f"exited with {returncode}"


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
    admin: Account | None = field(default=None, init=False, repr=False)  # None until start() made it
    scenario: Account = field(default_factory=lambda: Account(SCENARIO_USER), init=False, repr=False)

    @property
    def datadir(self) -> Path:
        return self._root / "data"

    @property
    def tmpdir(self) -> Path:
        """The server's own temporary directory: a mariadbd starting up deletes every `#sql*`
        file in its tmpdir, which would break another server's install running in a shared /tmp."""
        return self._root / "tmp"

    @property
    def files_dir(self) -> Path:
        """secure_file_priv: empty, and not writable by the server."""
        return self._root / "files"

    @property
    def plugin_dir(self) -> Path:
        """The server's plugin directory: links to PLUGINS only."""
        return self._root / "plugins"

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
        """Install a datadir, start mariadbd, wait until it accepts connections, and make
        the harness's administrator and the restricted scenario account."""
        if self.root is None:
            self.root = make_workdir(self.name)
        user = server_user()
        try:
            self._prepare(user)
            self._install(user)
            self.port = self.port or free_port()
            self.process = subprocess.Popen(  # noqa: S603 - our own argument list
                self._command(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self._root,
                start_new_session=True,  # Ctrl-C reaches the harness, which stops the server itself
                preexec_fn=die_with_parent,
                **_as_user(user),  # type: ignore[arg-type]
            )
            self._wait_until_ready()
            self._secure_accounts()
        except BaseException:
            self.stop()
            raise

    def _prepare(self, user: pwd.struct_passwd | None) -> None:
        """The server's directories: its own (and datadir, tmpdir) owned by the server's user;
        the plugin and file directories not writable by it."""
        self.tmpdir.mkdir(parents=True, exist_ok=True)
        self.datadir.mkdir(exist_ok=True)
        self.plugin_dir.mkdir(exist_ok=True)
        for plugin in PLUGINS:
            if not (self.plugin_dir / plugin).is_symlink():
                (self.plugin_dir / plugin).symlink_to(system_plugin_dir() / plugin)
        self.files_dir.mkdir(exist_ok=True)
        self.files_dir.chmod(0o555)
        if user is not None:
            for directory in (self._root, self.datadir, self.tmpdir):
                os.chown(directory, user.pw_uid, user.pw_gid)

    def _command(self) -> list[str]:
        return [
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
            f"--plugin-dir={self.plugin_dir}",
            *(f"--plugin-load-add={plugin}" for plugin in PLUGINS),
            f"--secure-file-priv={self.files_dir}",
            "--local-infile=OFF",
            # CREATE TRIGGER with the binlog on needs SUPER otherwise (1419), which the
            # scenario account does not have; root had it. It also lifts 1418 for stored
            # functions, which the simulator refuses (1235) either way.
            "--log-bin-trust-function-creators=ON",
            "--innodb-buffer-pool-size=32M",
            "--innodb-log-file-size=16M",
            "--innodb-flush-log-at-trx-commit=2",
            "--skip-innodb-doublewrite",
            "--performance-schema=OFF",
            *self.options,
        ]

    def _install(self, user: pwd.struct_passwd | None) -> None:
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
        result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=self._root, **_as_user(user))  # type: ignore[call-overload]  # noqa: S603
        if result.returncode != 0:
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
            raise ServerError(f"{self.name}: mariadb-install-db failed (exit {result.returncode}):\n{tail}")

    def _secure_accounts(self) -> None:
        """The installer's root makes the administrator, who restricts the scenario account."""
        admin = Account(ADMIN_USER)
        with self.connect() as connection, connection.cursor() as cursor:
            create_admin(cursor, admin)
        self.admin = admin
        with self.connect() as connection, connection.cursor() as cursor:
            restrict_scenario_account(cursor, admin, self.scenario)

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
        """The harness's administrative connection over the server's Unix socket (before the
        administrator exists, the installer's root)."""
        account = self.admin or Account(SCENARIO_USER, "")
        return self._connect(account, database, autocommit, read_timeout)

    def connect_scenario(self, database: str | None = None, autocommit: bool = True, read_timeout: float | None = None) -> pymysql.connections.Connection:
        """A connection for scenario SQL, as the restricted scenario account."""
        return self._connect(self.scenario, database, autocommit, read_timeout)

    def _connect(self, account: Account, database: str | None, autocommit: bool, read_timeout: float | None) -> pymysql.connections.Connection:
        return pymysql.connect(
            unix_socket=str(self.socket_path),
            user=account.user,
            password=account.password,
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

    def terminate(self) -> None:
        """Ask the server to shut down (SIGTERM) without waiting; `stop` waits for it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the process this object started (TERM, then KILL) and remove its directory."""
        self.terminate()
        process, self.process = self.process, None
        if process is not None:
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
        self.admin = None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def death(self) -> str | None:
        """How the server process ended (`killed by SIGKILL`, `shut down`), or None while it runs."""
        if self.process is None or self.process.poll() is None:
            return None
        return _death(self.process.returncode)

