"""Clients of a Caravan node: the bot SDK, bots, and engine-only simulation."""
