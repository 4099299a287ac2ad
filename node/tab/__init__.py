"""The browser-tab bundle: building it and serving or checking a copy."""
