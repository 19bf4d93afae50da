"""The executor's tests share one fixture: `db`, a fresh MySQL 8.0 server with one session
(tests.support.Db), closed after the test. A module that needs another server (a flavor,
tables made first) defines its own `db`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import Db


@pytest.fixture
def db() -> Iterator[Db]:
    server = Db()
    yield server
    server.close()
