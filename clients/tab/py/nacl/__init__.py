"""The browser tab's stand-in for PyNaCl (issue 32): the few `nacl.bindings` functions that
`protocol/` calls, backed by libsodium.js (`libsodium-wrappers-sumo`) through Pyodide's bridge.

It is the same C library compiled to WebAssembly, so every check (strict signatures, the
prime-order subgroup, canonical encodings) is libsodium's own, never a re-implementation.
Only the tab's worker puts this package on sys.path; the desktop uses the real PyNaCl."""
