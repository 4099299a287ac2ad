"""Bazaar: a tiny card game installed from its own package (issue 37: a fourth game proves that a
game is one package found through the registries). RULES.md holds its rules; `engine` and
`options` are the rules side (they import only `protocol`), `presentation` and `picture` the
clients' side, `conformance` the hooks of the shared conformance battery."""
