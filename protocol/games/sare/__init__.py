"""Sa-Rê: rules engine and component data (specs/sa-re.md)."""

from .engine import ENGINE, SareEngine, SareState

__all__ = ["ENGINE", "SareEngine", "SareState"]
