"""Sabbat Magica (Helvetia Games, 2016): rules engine and component data.

specs/sabbat-magica.md is the rules as implemented, with the ambiguity register.
"""

from .engine import ENGINE, SabbatEngine, State

__all__ = ["ENGINE", "SabbatEngine", "State"]
