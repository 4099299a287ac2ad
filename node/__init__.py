"""Caravan's runtime: command line, and (with the node issue) transport, lobby and store."""
