"""Mental-deck tests (protocol/deck): flows with 2-6 players, cheats, properties, vectors."""
