"""The mental deck inside the session: the deck fixture game among 2-6 in-process replicas
that exchange only bytes, its transcript verified, every card accounted for."""

from __future__ import annotations

from collections import Counter

import pytest

from node.cli.verify_pool import proofs_in, workers
from protocol import chain, engine as E
from protocol.deck import card_point, ops
from protocol.deck.group import add_all, mul, parse_point, sub
from protocol.player import Player
from protocol.verify import verify_bytes
from tests.deck.deck_game import ENGINE, deck_table, deck_x, messages, replay, resign, seat_of


def truth(t) -> dict[int, int]:
    """handle -> card for every deck handle: public ones, and the rest from the published keys."""
    s = t.sessions[0]
    audit = s.audit(retired=True)
    assert set(audit) | set(s.public) >= set(s.cipher), "every hidden card must open with the published keys"
    assert set(s.audit()) == set(audit) - s.retired
    return {**audit, **{h: v for h, v in s.public.items() if h in s.cipher}}


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_deck_game_plays_verifies_and_every_card_is_accounted_for(n):
    t, rec = deck_table(n, seed=n)
    s = t.sessions[0]
    assert len({tuple(x.log) for x in t.sessions}) == 1, "every replica holds the same log"
    assert all(x.complete for x in t.sessions)
    kinds = Counter(m.kind for _, m in messages(t))
    assert {"deckkey", "shuffle", "share", "remask", "return", "act", "final"} <= set(kinds)
    assert kinds["deckkey"] == n and kinds["shuffle"] == 2 * n and kinds["return"] == 2 * n
    assert all("deck_key" in b for b in s.finals.values())

    report = verify_bytes(t.transcript())
    assert report.ok, report.error
    assert report.result == s.result()
    with workers(2) as pool:        # verify --jobs: proofs checked in a worker while the replay goes on
        assert verify_bytes(t.transcript(), proofs=proofs_in(pool)).to_json() == report.to_json()
    tr = truth(t)
    assert report.hidden_cards == s.audit() and report.hidden_cards
    assert report.to_json()["hidden_cards"] == {str(h): c for h, c in sorted(s.audit().items())}

    # every physical card is exactly once in the deck, a hand, aside or claimed
    st = s.state
    cards = [tr[h] for h in st.deck] + [tr[h] for hand in st.hands for h in hand]
    cards += [st.aside_card] + [c for cs in st.claimed for c in cs]
    assert sorted(cards) == list(range(st.cards))
    assert st.aside_card == tr[st.aside]
    assert set(report.hidden_cards) == set(st.deck) | {h for hand in st.hands for h in hand}

    # what each seat knows is true, and covers its hand
    for p in t.players:
        k = p.knowledge
        assert all(tr[h] == v for h, v in k.items() if h in tr)
        assert all(h in k for h in st.hands[p.seat])
        assert not [h for h in k if h in tr and h not in s.public and p.seat not in s.seen.get(h, ())]

    # face-down returns: the engine's handles map as the referee's do (returned first, kept in order)
    returns = [e for e in s.private_log if e[0] == "return"]
    assert len(returns) == len(rec.returns) == 2 * n
    for (seat, old, returned, kept), (rseat, rold, before, choice) in zip((e[1:] for e in returns), rec.returns):
        assert (seat, old) == (rseat, rold)
        assert tr[returned] == before[choice]
        assert [tr[h] for h in kept] == [before[h] for h in old if h != choice]
        assert t.players[seat].knowledge[returned] == before[choice]


def test_events_answer_each_deck_step_like_the_referee():
    """The engine gets one event per step, of the type the referee would give, with fresh
    handles; replaying the log gives the same events in the same order."""
    t, _ = deck_table(3, seed=3)
    fresh = replay(t, 0)
    events = []
    for raw in t.sessions[0].log:
        step = fresh.engine.expected(fresh.state)
        receipt = fresh.receive(raw)
        events.extend((step, ev) for ev in receipt.events)
    answer = {E.DeckShuffle: E.DeckShuffled, E.DeckReveal: E.DeckRevealed, E.DeckShow: E.DeckShown,
              E.DeckReturn: E.DeckReturned, E.Decide: E.Act}
    seen_handles: set[int] = set()
    for step, ev in events:
        if type(step) in answer and type(ev) is answer[type(step)]:
            new = ev.handles if isinstance(ev, E.DeckShuffled) else (
                (ev.returned, *ev.kept) if isinstance(ev, E.DeckReturned) else ())
            assert not seen_handles & set(new), "handles are fresh"
            seen_handles |= set(new)
    assert [type(ev).__name__ for _, ev in events].count("DeckReturned") == 6
    assert fresh.log == t.sessions[0].log and fresh.complete
    # the last show (of a card already public) needed no message: its event came with the
    # share that completed the reveal before it
    *_, (s1, e1), (s2, e2) = events
    assert isinstance(e1, E.DeckRevealed) and isinstance(e2, E.DeckShown) and e2.seat == 0
    kinds = [m.kind for _, m in messages(t)]
    assert kinds[-4:] == ["share", "final", "final", "final"]
    # seat 0's round-1 peek of (burned card, a card it holds) asked for shares of the first only
    peek = next(st for st, ev in events if isinstance(st, E.DeckShow) and len(st.handles) == 2
                and st.handles[0] == fresh.state.aside)
    aside, held = peek.handles
    assert peek.seat == 0 and 0 in fresh.seen[held]
    assert [e[2] for e in fresh.private_log if e[0] == "show" and e[1] == 0].count(held) == 1
    answers = [m.body["shares"] for _, m in messages(t, "share") if any(x[0] == aside for x in m.body["shares"])]
    assert len(answers) == 3 and all(len(a) == 1 for a in answers)   # seats 1, 2 at the peek; 0 at the end


def test_restart_derives_knowledge_again_and_redoes_a_return_identically():
    t, rec = deck_table(3, seed=3)
    log = t.sessions[0].log
    # after the game: a restarted node (fresh replica + fresh player) knows exactly the same
    for seat in range(3):
        s = replay(t, len(log))
        p = Player(s, seat, t.keys[seat], t.secrets[seat])
        assert p.knowledge == t.players[seat].knowledge
    # mid-game, at a face-down return: the restarted node makes the very same message
    for (i, m), (seat, _, _, choice) in zip(messages(t, "return"), rec.returns):
        s = replay(t, i)
        p = Player(s, seat_of(t, m), t.keys[seat], t.secrets[seat])
        d = p.decision()
        assert d is not None and d.kind == "return" and choice in d.legal
        assert p.decide(choice) == m.raw
        break


def test_a_private_draw_opens_only_with_the_drawers_secret():
    n = 4
    t, _ = deck_table(n, seed=n)
    s = t.sessions[0]
    before_finals = [raw for raw in s.log if chain.parse(raw).kind != "final"]
    xs = [deck_x(t, i) for i in range(n)]
    shows = [e for e in s.private_log if e[0] == "show" and s.seen[e[2]] == {e[1]}]
    assert len(shows) >= n
    for _, j, h, c, shares in shows:
        a, b = parse_point(c[0], "A"), parse_point(c[1], "B")
        # the published shares with every other seat's secret key: M + x_j·B, no card
        others = add_all(mul(int.from_bytes(xs[i], "little"), b) for i in range(n) if i != j)
        assert s.decode(bytes(sub(a, others))) is None
        assert s.decode(ops.open_card(c, shares)) is None
        assert sorted(shares) == sorted(bytes(mul(int.from_bytes(xs[i], "little"), b)) for i in range(n) if i != j)
        # the drawer's secret completes it
        assert s.decode(ops.open_private(xs[j], c, shares)) == t.players[j].knowledge[h]
    # no card's plaintext point is in any message, before or after its reveal
    blob = b"".join(before_finals)
    points = [bytes(card_point("main", i)) for i in range(s.state.cards)]
    assert not [i for i, m in enumerate(points) if m in blob]
    assert not [i for i, m in enumerate(points) if m in b"".join(s.log)]


@pytest.mark.parametrize("kind", ["deckkey", "shuffle", "share", "remask", "return"])
def test_a_tampered_deck_message_in_a_finished_transcript_names_its_signer(kind):
    t, _ = deck_table(2, seed=2)
    from protocol import transcript
    i, m = messages(t, kind)[-1]
    body = m.body
    if kind == "deckkey":
        body = {**body, "pok": [body["pok"][1], body["pok"][0]]}
    elif kind == "shuffle":
        body = {**body, "deck": body["deck"][1:] + body["deck"][:1]}
    elif kind == "share":
        sh = body["shares"][0]
        body = {"shares": [[sh[0], sh[1], [sh[2][1], sh[2][0]]]] + body["shares"][1:]}
    elif kind == "remask":
        h, c, proof = body["cards"][0]
        body = {"cards": [[h, [c[1], c[0]], proof]]}
    else:
        body = {**body, "hand": body["hand"][::-1]}
    log = list(t.sessions[0].log)
    log[i] = resign(t, m, body=body)
    report = verify_bytes(transcript.dump(t.genesis.to_wire(), log))
    assert not report.valid
    assert report.error["position"] == i + 1
    assert report.error["code"] == "bad-proof"
    assert report.error["seat"] == seat_of(t, m)
    # with the proofs checked in a worker while the replay goes on (verify --jobs): the same report
    with workers(2) as pool:
        assert verify_bytes(transcript.dump(t.genesis.to_wire(), log), proofs=proofs_in(pool)).to_json() \
            == report.to_json()
    # without re-signing, the signature gives it away first
    log[i] = m.raw[:-5] + bytes([m.raw[-5] ^ 1]) + m.raw[-4:]
    report = verify_bytes(transcript.dump(t.genesis.to_wire(), log))
    assert report.error["code"] == "bad-signature" and report.error["seat"] == seat_of(t, m)


def test_without_key_publication_nothing_hidden_is_audited():
    from tests.helpers import new_table, play
    t = new_table(ENGINE, 2, seed=33)
    for p in t.players:
        p.publish_deck_key = False
    play(t, lambda seat, legal: legal[0])
    s = t.sessions[0]
    assert s.complete and s.audit() == {}
    report = verify_bytes(t.transcript())
    assert report.ok and report.hidden_cards == {}
    # and a game without any deck has no deck messages at all
    from tests.fixture_game import ENGINE as DICE
    from protocol import games
    games.register(DICE)
    t = new_table(DICE, 2, seed=1)
    play(t, lambda seat, legal: legal[0])
    assert {chain.parse(r).kind for r in t.sessions[0].log} <= {"act", "commit", "reveal", "beacon", "final"}
    assert all("deck_key" not in b for b in t.sessions[0].finals.values())
