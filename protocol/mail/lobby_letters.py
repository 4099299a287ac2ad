"""Letters of a turn-based table's lobby through postboxes (issue 33), without any I/O: the
signed advert a host leaves on the broker, and the sealed letters between the host and
each joiner, addressed by key (in a lobby nobody has a seat number yet).

    advert = wire.encode([ADVERT_TAG, fields, Ed25519 signature of wire.encode(fields) by the host])
    letter = crypto_box_seal(inner + signature of inner by the sender,
                             X25519 form of the recipient's key)
    inner = wire.encode([TAG, lobby id, sender's key, recipient's key, body])

The advert is left on the broker sealed with a key derived from the host key's pin
(`hide`): only someone given the invite reads it, so only they learn the host's key, which a
join must be sealed to (whoever sees the broker's topics learns the lobby id and the host's
inbox, never enough to join). A joiner trusts an advert only when its host key has the pin of
the invite; a letter that
does not open, is for another lobby or key, or is not signed by the key it names is refused
(`MailError`, naming why). node/app/mail_lobby.py runs the lobby; specs/node.md "Turn-based
tables: the lobby through postboxes" has the design."""

from __future__ import annotations

from typing import Any

import nacl.bindings as sodium
import nacl.exceptions

from .. import wire
from ..hashing import tagged_hash
from ..identity import SigningKey, fingerprint, verify
from ..link.handshake import key_pin
from .mailbox import MAX_ENVELOPE, SIGNATURE, MailError, curve_public, curve_secret

TAG = "caravan-lobby-letter-v1"
ADVERT_TAG = "caravan-lobby-advert-v1"


def sign_advert(key: SigningKey, fields: dict[str, Any]) -> bytes:
    """The host's advert of a lobby (its game, options, pace, beacon nonce, key), signed."""
    raw = wire.encode(fields)
    return wire.encode([ADVERT_TAG, fields, key.sign(ADVERT_TAG.encode() + raw)])


def _advert_key(pin: bytes) -> bytes:
    return tagged_hash("caravan/lobby-advert-key/v1", pin)


def hide(signed: bytes, pin: bytes, nonce: bytes | None = None) -> bytes:
    """The signed advert as left on the broker: readable only with the invite's pin. `nonce`:
    the secretbox's, fresh from libsodium unless given (sans-I/O: no random source of our own)."""
    if nonce is None:
        nonce = sodium.randombytes(sodium.crypto_secretbox_NONCEBYTES)
    return nonce + sodium.crypto_secretbox(signed, nonce, _advert_key(pin))


def open_advert(hidden: bytes, pin: bytes, lobby_id: bytes) -> tuple[dict[str, Any], bytes]:
    """(the advert's fields, the signed advert) once it proves to be lobby `lobby_id`'s, signed
    by the key with `pin`; MailError (one line) otherwise: nothing is sent to a lobby whose
    advert fails."""
    size = sodium.crypto_secretbox_NONCEBYTES
    try:
        signed = sodium.crypto_secretbox_open(hidden[size:], hidden[:size], _advert_key(pin))
    except (nacl.exceptions.CryptoError, ValueError, TypeError):
        raise MailError("the lobby's advert on the broker does not open with the invite's host key (another "
                        "host's lobby, or damaged): nothing was sent or signed") from None
    value = _decoded(signed, 3, ADVERT_TAG, "the lobby's advert on the broker")
    _, fields, sig = value
    if type(fields) is not dict or type(fields.get("host_key")) is not bytes:
        raise MailError("the lobby's advert on the broker is not one (a different Caravan version?)")
    host = fields["host_key"]
    if key_pin(host) != pin:
        raise MailError(f"the lobby's advert is signed by key {key_pin(host).hex()}, not {pin.hex()}, the one in "
                        "the invite: nothing was sent or signed")
    if not verify(host, sig, ADVERT_TAG.encode() + wire.encode(fields)):
        raise MailError("the lobby's advert does not carry its host's signature")
    if fields.get("lobby") != lobby_id:
        raise MailError("the advert is for another lobby than the invite's")
    return fields, signed


def seal(key: SigningKey, lobby_id: bytes, to: bytes, body: Any) -> bytes:
    """A letter with `body` from `key` to the holder of key `to` (only it can open it)."""
    inner = wire.encode([TAG, lobby_id, key.public, to, body])
    return sodium.crypto_box_seal(inner + key.sign(inner), curve_public(to))


def open_letter(key: SigningKey, lobby_id: bytes, envelope: bytes) -> tuple[bytes, Any]:
    """(sender's key, body) of a letter to `key` in lobby `lobby_id`; MailError saying why not."""
    if len(envelope) > MAX_ENVELOPE:
        raise MailError(f"a letter of {len(envelope)} bytes (over {MAX_ENVELOPE})")
    try:
        plain = sodium.crypto_box_seal_open(envelope, curve_public(key.public), curve_secret(key))
    except (nacl.exceptions.CryptoError, ValueError, TypeError):
        raise MailError("a letter that does not open with this node's key") from None
    inner, sig = plain[:-SIGNATURE], plain[-SIGNATURE:]
    _, lobby, sender, to, body = _decoded(inner, 5, TAG, "a letter")
    if lobby != lobby_id or to != key.public or type(sender) is not bytes:
        raise MailError("a letter for another lobby or key")
    if not verify(sender, sig, inner):
        raise MailError(f"a letter that claims key {fingerprint(sender)} but is not signed by it", claimed=sender)
    return sender, body


def open_frame(key: SigningKey, lobby_id: bytes, envelope: bytes) -> tuple[bytes, dict]:
    """(sender's key, frame) of a letter whose body is a lobby frame (a map with a str "t"),
    as both sides take them; MailError saying why not (naming the key it claims)."""
    sender, body = open_letter(key, lobby_id, envelope)
    if type(body) is not dict or type(body.get("t")) is not str:
        raise MailError(f"a letter from {fingerprint(sender)} that is no lobby frame", claimed=sender)
    return sender, body


def _decoded(data: bytes, fields: int, tag: str, what: str) -> list:
    """`data` as the list of `fields` values starting with `tag`; MailError naming `what` otherwise."""
    try:
        value = wire.decode(data)
    except Exception:                                    # noqa: BLE001 - any undecodable input
        raise MailError(f"{what} does not decode") from None
    if type(value) is not list or len(value) != fields or value[0] != tag:
        raise MailError(f"{what} is not a {tag} (a different Caravan version?)")
    return value
