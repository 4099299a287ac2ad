"""What this node keeps on disk: its games, their files and how each seat decides."""
