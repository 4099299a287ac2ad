"""The pages this node serves on 127.0.0.1: the table page and the home."""
