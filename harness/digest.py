"""A statement's shape, normalised the way a query digest is: literals become `?`, lists
of them one `?` (`IN (...)`, a multi-row VALUES), comments and spacing go, keywords are
upper-cased. Statements of one shape are one statement of the application, run with
other values: a workload is judged per shape."""

from __future__ import annotations

import re

_COMMENT = re.compile(r"/\*(?![!+]).*?\*/|(?:--\s|#)[^\n]*", re.DOTALL)
_STRING = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"")
_NUMBER = re.compile(r"(?<![\w.`@])[-+]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)(?![\w`])")
_LIST = re.compile(r"\(\s*\?(?:\s*,\s*\?)*\s*\)")
_ROWS = re.compile(r"\((?:\s*\.\.\.\s*)\)(?:\s*,\s*\((?:\s*\.\.\.\s*)\))+")
_WORD = re.compile(r"`[^`]*`|\b[A-Za-z_]+\b")
_KEYWORDS = frozenset(
    "SELECT INSERT INTO VALUES VALUE UPDATE SET DELETE FROM WHERE AND OR NOT IN IS NULL LIMIT ORDER BY GROUP HAVING "
    "REPLACE IGNORE ON DUPLICATE KEY JOIN LEFT RIGHT INNER OUTER AS BETWEEN LIKE FOR SHARE LOCK MODE BEGIN COMMIT "
    "ROLLBACK START TRANSACTION CREATE TABLE ALTER DROP TRUNCATE INDEX DESC ASC DISTINCT UNION ALL EXISTS CASE WHEN "
    "THEN ELSE END DEFAULT SAVEPOINT RELEASE TO TEMPORARY IF".split()
)


def digest(sql: str) -> str:
    """The statement's shape: `UPDATE t SET v = ? WHERE id IN (...)`."""
    text = _COMMENT.sub(" ", sql)
    text = _STRING.sub("?", text)
    text = _NUMBER.sub("?", text)
    text = _LIST.sub("(...)", text)
    text = _ROWS.sub("(...)", text)
    text = " ".join(text.split()).rstrip(";").strip()
    return _WORD.sub(lambda match: match.group(0).upper() if match.group(0).upper() in _KEYWORDS else match.group(0), text)
