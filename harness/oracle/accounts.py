"""The accounts of a harness server: the harness's own administrator and the scenario account.

Scenario SQL is untrusted input (fuzzers, imports, other people's suites), so it runs as
an account that can do what scenarios do and nothing else: no FILE (no LOAD_FILE, LOAD
DATA INFILE, INTO OUTFILE), no SUPER (no SET GLOBAL of server settings, no CHANGE
MASTER), no SHUTDOWN, PROCESS, CREATE USER, CONNECTION ADMIN, and no write to the
`mysql` schema (so no INSTALL PLUGIN / SONAME and no loadable functions). The harness
sets servers up, controls replication and takes snapshots as `rplh_admin`.

The scenario account is `root`@`localhost` stripped of those privileges: the simulator's
sessions are root@localhost, and the server writes the account into the binlog
(`CREATE DEFINER=`root`@`localhost` TRIGGER ...`) and returns it from CURRENT_USER().
Every other account the installer made (root on 127.0.0.1, ::1 and the host name, all
without a password) is dropped, and both accounts get a random password, so a
connection a scenario opens over the network reaches nothing it could not do already.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

ADMIN_USER = "rplh_admin"
SCENARIO_USER = "root"
HOST = "localhost"
# Database privileges on every database but `mysql`: MariaDB takes a session's database
# privileges from the first matching grant, and the exact name `mysql` sorts before `%`.
DATABASE_PRIVILEGES = (
    "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, REFERENCES, INDEX, ALTER, CREATE TEMPORARY TABLES, "
    "LOCK TABLES, EXECUTE, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, EVENT, TRIGGER, DELETE HISTORY"
)
MYSQL_SCHEMA_PRIVILEGES = "SHOW VIEW"  # the grant that shadows `%` for `mysql`: it reads and writes nothing
# What scenarios do with the log tables: read them, TRUNCATE them (DROP), and see INSERT
# refused by the server itself (1556), as it refuses it to root.
LOG_TABLE_PRIVILEGES = {"general_log": "SELECT, INSERT, DROP", "slow_log": "SELECT, INSERT, DROP"}
# SET [SESSION] binlog_format, binlog_row_image, binlog_annotate_row_events,
# binlog_direct_non_transactional_updates and sql_log_bin need SUPER or BINLOG ADMIN in 10.11.
GLOBAL_PRIVILEGES = "BINLOG ADMIN"
SYSTEM_ACCOUNTS = frozenset({("mariadb.sys", HOST)})  # locked; the definer of the sys schema's views


@dataclass(frozen=True)
class Account:
    user: str
    password: str = field(default_factory=lambda: secrets.token_hex(16), repr=False)


def create_admin(cursor: object, admin: Account) -> None:
    """Run as the installer's root: the harness's administrator, with every privilege."""
    for sql in (
        "SET sql_log_bin = 0",
        f"CREATE USER '{admin.user}'@'{HOST}' IDENTIFIED BY '{admin.password}'",
        f"GRANT ALL PRIVILEGES ON *.* TO '{admin.user}'@'{HOST}' WITH GRANT OPTION",
    ):
        cursor.execute(sql)  # type: ignore[attr-defined]


def restrict_scenario_account(cursor: object, admin: Account, scenario: Account) -> None:
    """Run as the administrator: drop the installer's other accounts and leave `scenario`
    with only the privileges scenarios need."""
    cursor.execute("SET sql_log_bin = 0")  # type: ignore[attr-defined]
    cursor.execute("SELECT User, Host FROM mysql.user")  # type: ignore[attr-defined]
    keep = SYSTEM_ACCOUNTS | {(admin.user, HOST), (scenario.user, HOST)}
    for user, host in cursor.fetchall():  # type: ignore[attr-defined]
        if (user, host) not in keep:
            cursor.execute("DROP USER %s@%s", (user, host))  # type: ignore[attr-defined]
    # The installer's PROXY grant on ''@'%' (REVOKE PROXY does not find it: 1141).
    cursor.execute("DELETE FROM mysql.proxies_priv WHERE User = %s AND Host = %s", (scenario.user, HOST))  # type: ignore[attr-defined]
    cursor.execute("FLUSH PRIVILEGES")  # type: ignore[attr-defined]
    account = f"'{scenario.user}'@'{HOST}'"
    for sql in (
        f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM {account}",
        f"ALTER USER {account} IDENTIFIED BY '{scenario.password}'",
        f"GRANT {DATABASE_PRIVILEGES} ON `%`.* TO {account}",
        f"GRANT {MYSQL_SCHEMA_PRIVILEGES} ON `mysql`.* TO {account}",
        *(f"GRANT {privileges} ON `mysql`.`{table}` TO {account}" for table, privileges in LOG_TABLE_PRIVILEGES.items()),
        f"GRANT {GLOBAL_PRIVILEGES} ON *.* TO {account}",
    ):
        cursor.execute(sql)  # type: ignore[attr-defined]
