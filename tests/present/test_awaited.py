"""The words for whom a game waits and for what (clients/narrate.awaited): a person's
decision names the person, a step their node takes by itself names the node."""

from clients.narrate import awaited

NAMES = ["Ann", "Bea", ""]


def test_a_persons_decision_names_the_person():
    assert awaited(NAMES, [1], "a move", True) == "Bea (seat 1): a move"
    assert awaited(NAMES, [0, 2], "a commitment", True, me=0) == "you, seat 2: a commitment"


def test_a_nodes_step_names_the_node():
    assert awaited(NAMES, [1], "decryption shares", False) == "Bea (seat 1)'s node: decryption shares"
    assert awaited(NAMES, [1], "a reveal", False, me=1) == "your node: a reveal"
    assert awaited(NAMES, [1, 2], "a reveal", False, me=2) == "Bea (seat 1)'s node, your node: a reveal"


def test_nobody_awaited_says_nothing():
    assert awaited(NAMES, [], "a move", True) == ""
