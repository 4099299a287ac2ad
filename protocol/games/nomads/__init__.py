"""Nomads of Arabia (Arabiens nomader): rules engine and component data.

See specs/nomads-of-arabia.md for the rules as implemented.
"""

from .engine import ENGINE, NomadsEngine, NomadsState

__all__ = ["ENGINE", "NomadsEngine", "NomadsState"]
