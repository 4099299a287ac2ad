"""Caravan's sans-I/O core: everything that must be identical on every replica.

Nothing in this package opens a socket, reads a clock or starts a thread, so the
verifier, the node and the tests all run the same code on the same bytes.
"""
