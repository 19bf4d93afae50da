"""docs/design.md names the home of each concept; every module and package it names exists."""

from __future__ import annotations

import re

from tests.support import ROOT

DESIGN = ROOT / "docs" / "design.md"
PACKAGES = ("scenarios", "server_sim", "master_sim", "slave_sim", "harness")
CONCEPTS = (
    "decide_logging_format",
    "unsafe reasons",
    "statement and transaction caches",
    "row images",
    "find_row",
    "default filling",
    "ignorable events",
    "the binlog contract",
)


def named_paths(text: str) -> set[str]:
    """Backticked paths of the project's packages: `master_sim/decision.py`, `harness/html/`."""
    return {match for match in re.findall(r"`([a-z_]+/[A-Za-z0-9_/]*(?:\.py)?)`", text) if match.split("/")[0] in PACKAGES}


def test_every_named_module_exists() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    paths = named_paths(text)
    assert len(paths) > 40
    missing = sorted(path for path in paths if not (ROOT / path).exists())
    assert missing == []


def test_every_concept_of_the_seeds_has_a_home() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    table = text[text.index("## Where each concept of the specification lives") :]
    rows = {line.split("|")[1].strip(): line.split("|")[2] for line in table.splitlines() if line.startswith("| ") and not line.startswith("| concept")}
    for concept in CONCEPTS:
        home = next((cell for name, cell in rows.items() if name.startswith(concept)), None)
        assert home is not None, concept
        assert named_paths(home), concept
