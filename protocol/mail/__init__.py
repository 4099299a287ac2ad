"""Turn-based tables' mail without its transport (issue 33): sealed, signed envelopes that wait
on a broker for a seat whose node is not running, so the desktop's MQTT shell
(node/net/postbox.py, node/net/mail_links.py, node/app/mail_lobby.py) and the browser tab
(issue 32) seal and open the very same bytes.

- `mailbox`: a seat's envelopes in one game: numbering, sealing, opening, acks, what is owed;
- `courier`: a seat's mail between its inbox and its game: what is sealed, handed, refused,
  acknowledged once durable, settled and sent again (node/net/mail_links.py is its trio shell);
- `lobby_letters`: the mail lobby's signed advert and the sealed letters addressed by key;
- `lobby_join`, `lobby_host`: a joiner's and the host's sides of the mail lobby (`MailJoiner`,
  `MailHost`), fed letters, giving letters and state.

Nothing here reads a clock, a file or a random source of its own (random bytes come from
libsodium, `nacl.bindings.randombytes`, unless the caller passes them), and of PyNaCl only
`nacl.bindings` is used: what the tab's shim over libsodium.js provides.
"""
