"""The node's links without their transport: state machines fed bytes and time that return
the bytes to send (sans-I/O, like `protocol.session`), so the trio node on a desktop and a
browser tab's asyncio driver run the same checks.

- `framing`: frames, their msgpack values, and TCP's length-prefixed stream of them;
- `handshake`: the mutual authentication that seals a link (hello, auth, the stream keys);
- `relay_frames`: a link through an MQTT broker: sequence numbers, sealing, held frames,
  acks and the flow-control window, idle and gap timing.

Nothing here reads a clock, a socket or a random source of its own: the caller passes the
time, and random bytes come from libsodium (`nacl.bindings.randombytes`, as
`protocol.identity` takes them) unless the caller passes them.
"""
