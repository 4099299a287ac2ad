"""The command line: `caravan`'s parser and commands, their argument checks and what they print."""
