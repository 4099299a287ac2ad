"""The application: its operations (host, join, resume, rematch, forget, watch) and one seat's game on this node."""
