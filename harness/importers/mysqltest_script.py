"""A mysqltest file read into its commands, as mysqltest reads it: `#` comment lines;
`--command args` lines (`-- command args` too, when the word is one of mysqltest's
commands; else the line is a comment), ended by the line's end; everything else ended by the current
delimiter (`delimiter` changes it), which makes one command or one SQL query;
`perl`/`write_file` blocks up to their `EOF` line; `if`/`while` blocks up to their
closing brace (read as one command, since their condition cannot be evaluated here)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from harness.importers.model import Origin
from harness.importers.mysqltest_rules import MYSQLTEST_COMMANDS
from harness.importers.text import delimiter_end, strip_leading_comments

_DASHED = re.compile(r"^\s*--(\s*)([A-Za-z_]\w*)\b(.*)$")
_BLOCK = re.compile(r"^\s*(?:--)?(perl|write_file|append_file)\b(.*)$", re.IGNORECASE)
_CONTROL = re.compile(r"^\s*(?:--)?(if|while)\s*\(", re.IGNORECASE)


@dataclass(frozen=True)
class Command:
    """One thing mysqltest runs: `text` without its delimiter; `dashed` when it came from
    a `--` line, which is always a command, never SQL."""

    origin: Origin
    text: str
    dashed: bool = False

    @property
    def word(self) -> str:
        """The first word, lower-cased: a mysqltest command name, or SQL's first keyword."""
        match = re.match(r"\s*([A-Za-z_]\w*)", self.text)
        return match.group(1).lower() if match else ""

    @property
    def argument(self) -> str:
        """The text after the first word."""
        return self.text.strip()[len(self.word) :].strip()


def commands(origin_file, text: str) -> Iterator[Command]:
    """The commands of one file, each with the line it starts on."""
    lines = text.splitlines()
    delimiter = ";"
    buffer: list[str] = []
    start = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        number = index + 1
        index += 1
        if not buffer:
            stripped = line.strip()
            dashed = _DASHED.match(line)
            if not stripped or stripped.startswith("#") or stripped == "--" or (dashed and dashed.group(1) and dashed.group(2).lower() not in MYSQLTEST_COMMANDS):
                continue  # `-- text` is a comment unless its first word is a command
            block = _BLOCK.match(line)
            if block:
                end = _until(lines, index, lambda candidate: candidate.strip() == "EOF")
                yield Command(Origin(origin_file, number), f"{block.group(1).lower()} block", True)
                index = end + 1
                continue
            if _CONTROL.match(line):
                end = _block_end(lines, index - 1)
                yield Command(Origin(origin_file, number), " ".join(lines[index - 1 : end + 1]), True)
                index = end + 1
                continue
            if dashed:
                word, rest = dashed.group(2), dashed.group(3).strip()
                if word.lower() == "delimiter":
                    delimiter = rest or delimiter
                yield Command(Origin(origin_file, number), f"{word} {rest}".strip(), True)
                continue
            start = number
        buffer.append(line)
        joined = "\n".join(buffer)
        while buffer:
            end = delimiter_end(joined, delimiter)
            if end is None:
                break
            text, comment_lines = strip_leading_comments(joined[: end - len(delimiter)])
            command = Command(Origin(origin_file, start + comment_lines), text)
            if command.word == "delimiter":
                delimiter = command.argument or delimiter
            if command.text:
                yield command
            joined = joined[end:]
            start = number
            buffer = [joined] if joined.strip() else []
    if buffer and "\n".join(buffer).strip():
        yield Command(Origin(origin_file, start), "\n".join(buffer).strip() + "\x00unterminated")


def _until(lines: list[str], index: int, done) -> int:
    while index < len(lines) and not done(lines[index]):
        index += 1
    return index


def _block_end(lines: list[str], index: int) -> int:
    """The line that closes the braces opened from line `index` on."""
    depth = 0
    opened = False
    for number in range(index, len(lines)):
        depth += lines[number].count("{") - lines[number].count("}")
        opened = opened or "{" in lines[number]
        if opened and depth <= 0:
            return number
    return len(lines) - 1
