"""The worker ops' arguments (clients/tab/py/tab_requests.py): a msgpack map from tests and the
page's Python callers, a JSON object from the page's own scripts (which have no msgpack), and
anything else refused in one line naming the op and what is missing."""

from __future__ import annotations

import msgpack
import pytest

from tests.tab_seats import tab_module

requests = tab_module("tab_requests", "tab_requests")


@pytest.mark.parametrize("data", [msgpack.packb({"game_id": "ab", "seed": 0}), b'{"game_id": "ab", "seed": 0}'])
def test_a_msgpack_map_or_a_json_object_is_taken(data):
    assert requests.request(data, "game_resume", "game_id", "seed") == {"game_id": "ab", "seed": 0}


@pytest.mark.parametrize("data", [None, b"", b"{", b'{"game_id": 1', msgpack.packb([1, 2]), b"\xc1junk",
                                  msgpack.packb({"seed": 0}), b'{"seed": 0}', b'["game_id"]'])
def test_anything_else_is_one_line_naming_what_is_missing(data):
    with pytest.raises(requests.RequestError) as refused:
        requests.request(data, "game_resume", "game_id", "seed")
    assert str(refused.value).startswith("game_resume needs a msgpack map with game_id, seed (missing: ")
    assert "game_id" in str(refused.value).split("missing: ")[1]
