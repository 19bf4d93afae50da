"""The executor's names master_sim uses, imported from one place."""

from __future__ import annotations

from server_sim.executor import Executor, Outcome, target_tables

__all__ = ["Executor", "Outcome", "target_tables"]
