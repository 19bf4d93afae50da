"""Two text columns of different collations compared (DTCollation::aggregate): of one
character set a _bin collation wins over any other, two other collations are an illegal
mix (1267); a _bin column beside another character set, or a value computed from one
compared with a _ci column, is refused. Recorded on MariaDB 10.11:
scenarios/oracle/collation-mix.yaml."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db

_MIX = "Illegal mix of collations ({},IMPLICIT) and ({},IMPLICIT) for operation '{}'"
_REFUSED = "This version of MySQL doesn't yet support '{}'"


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize(
    ("flavor", "sql", "answer"),
    [
        (MARIADB_1011, "SELECT id FROM c WHERE b = g ORDER BY id", [(2,)]),  # the _bin collation wins: exact
        (MARIADB_1011, "SELECT id FROM c WHERE g = b ORDER BY id", [(2,)]),
        (MARIADB_1011, "SELECT id FROM c WHERE b IN (g, 'x') ORDER BY id", [(2,)]),
        (MARIADB_1011, "SELECT id FROM c WHERE b < g ORDER BY id", [(3,)]),  # code points: 'B' < 'b'
        (MARIADB_1011, "SELECT c1.id FROM c AS c1 JOIN c AS c2 ON c1.b = c2.g ORDER BY c1.id", [(1,), (2,)]),
        (MARIADB_1011, "SELECT id FROM c WHERE g = u", (1267, _MIX.format("utf8mb4_general_ci", "utf8mb4_unicode_ci", "="))),
        (MARIADB_1011, "SELECT id FROM c WHERE u >= g", (1267, _MIX.format("utf8mb4_unicode_ci", "utf8mb4_general_ci", ">="))),
        (MARIADB_1011, "SELECT id FROM c WHERE g = l ORDER BY id", [(1,), (2,), (3,)]),  # latin1 converted to utf8mb4: both ignore case
        (MARIADB_1011, "SELECT id FROM c WHERE b = l", (1235, _REFUSED.format("comparing the columns b (utf8mb4_bin) and l (latin1_swedish_ci), of a _bin collation and another character set"))),
        (MARIADB_1011, "SELECT id FROM c WHERE UPPER(b) = g", (1235, _REFUSED.format("comparing values of columns of a _bin and a _ci collation (UPPER(b), g) where one is computed"))),
        (MARIADB_1011, "SELECT id FROM c WHERE g IN (SELECT b FROM c)", (1235, _REFUSED.format("comparing values of columns of a _bin and a _ci collation (g, (SELECT b FROM c)) where one is computed"))),
        (MARIADB_1011, "SELECT id FROM c WHERE CONCAT(g, 'x') = 'AX' ORDER BY id", [(1,), (2,)]),  # one collation: no mix
        # MySQL 8.0's default utf8mb4 collation beside a column declared with the older one
        (MYSQL_80, "SELECT id FROM c WHERE g = d", (1267, _MIX.format("utf8mb4_general_ci", "utf8mb4_0900_ai_ci", "="))),
    ],
)
def test_columns_of_two_collations_compared(flavor, sql: str, answer: object, fast_path: bool) -> None:
    db = Db(flavor=flavor, fast_path=fast_path)
    db.ok(
        "CREATE TABLE c (id INT PRIMARY KEY, b VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,"
        " g VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, u VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,"
        " l VARCHAR(10) CHARACTER SET latin1, d VARCHAR(10) CHARACTER SET utf8mb4)"
    )
    db.ok("INSERT INTO c VALUES (1, 'a', 'A', 'A', 'A', 'A'), (2, 'a', 'a', 'a', 'a', 'a'), (3, 'B', 'b', 'b', 'b', 'b')")
    outcome = db.run(sql)
    if isinstance(answer, tuple):
        assert outcome.error is not None and (outcome.error.code, outcome.error.message) == answer
    else:
        assert outcome.error is None, outcome.error
        assert outcome.rows == answer
    db.close()
