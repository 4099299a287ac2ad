"""Heuristic bots, one module per game (clients/bots/<game>.py defines HeuristicBot)."""
