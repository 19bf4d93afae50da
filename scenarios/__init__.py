"""Replication scenarios: the model and the YAML loader that builds it."""

from scenarios.loader import LoadResult, ScenarioLoadError, load_paths, load_scenario
from scenarios.model import (
    BINLOG_FORMATS,
    EngineDeclaration,
    EventPattern,
    Expectation,
    Scenario,
    ScenarioError,
    Step,
    Verdict,
)

__all__ = [
    "BINLOG_FORMATS",
    "EngineDeclaration",
    "EventPattern",
    "Expectation",
    "LoadResult",
    "Scenario",
    "ScenarioError",
    "ScenarioLoadError",
    "Step",
    "Verdict",
    "load_paths",
    "load_scenario",
]
