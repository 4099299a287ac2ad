"""A seat's node between its links, without the links (issue 32): sans-I/O state machines
fed decoded frames and the caller's time, giving back the frames to send and what happened.
The trio node (node/app/game.py) is one shell around them; the browser tab's driver another.

`mesh`: heads, catch-up, message intake and the gate that lets a seat sign again.
`vote`: the abandon vote (proposals, signatures, records, the earliest record wins).
`watch`: each tick of the stall watch (when to propose, send again, give up).
`postbox`: a turn-based table's postbox seat (what is owed, the drained inbox, when idle).
`joiner`: a joiner's side of a lobby (the offered genesis checked before it signs)."""
