"""The linked game's wire format: codes and signed messages (boardctl.remote.messages)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.remote.messages import (
    ALPHABET,
    SECRET_BYTES,
    SENDERS,
    RemoteError,
    decode,
    decode_code,
    encode,
    encode_code,
    game_id,
    link_key,
)

secrets_ = st.binary(min_size=SECRET_BYTES, max_size=SECRET_BYTES)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
bodies = st.dictionaries(st.text(max_size=10), json_values, max_size=5)
kinds = st.sampled_from(sorted(SENDERS))
request_ids = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=64)


def _message(
    kind: str, sender: str, secret: bytes, body: dict[str, Any], rid: str, n: int
) -> bytes:
    rid = rid if kind in ("cmd", "answer") else ""
    return encode(
        kind, sender, game=game_id(secret), key=link_key(secret), body=body, request_id=rid, n=n
    )


@given(secrets_)
def test_a_code_gives_back_its_secret_however_it_is_typed(secret: bytes) -> None:
    code = encode_code(secret)
    assert len(code.replace("-", "")) == 22
    assert decode_code(code) == secret
    sloppy = code.lower().replace("-", " ").replace("1", "l").replace("0", "o")
    assert decode_code(sloppy) == secret


@given(secrets_, st.data())
def test_every_single_wrong_digit_of_a_code_is_caught(secret: bytes, data: st.DataObject) -> None:
    text = encode_code(secret).replace("-", "")
    at = data.draw(st.integers(0, len(text) - 1))
    wrong = data.draw(st.sampled_from([c for c in ALPHABET if c != text[at]]))
    with pytest.raises(RemoteError, match="mistyped"):
        decode_code(text[:at] + wrong + text[at + 1 :])


@given(secrets_, st.data())
def test_every_swap_of_two_neighbouring_digits_of_a_code_is_caught(
    secret: bytes, data: st.DataObject
) -> None:
    text = encode_code(secret).replace("-", "")
    at = data.draw(st.integers(0, len(text) - 2))
    if text[at] == text[at + 1]:
        return  # the same code
    swapped = text[:at] + text[at + 1] + text[at] + text[at + 2 :]
    with pytest.raises(RemoteError, match="mistyped"):
        decode_code(swapped)


def test_a_code_of_the_wrong_length_or_letters_is_refused_saying_why() -> None:
    with pytest.raises(RemoteError, match="not 22"):
        decode_code("7K2M-9QP4")
    with pytest.raises(RemoteError, match="'U'"):
        decode_code("U" * 22)


@given(secrets_, kinds, bodies, request_ids, st.integers(0, 2**53), st.data())
def test_a_message_decodes_to_what_was_sent(
    secret: bytes, kind: str, body: dict[str, Any], rid: str, n: int, data: st.DataObject
) -> None:
    sender = data.draw(st.sampled_from(SENDERS[kind]))
    message = decode(
        _message(kind, sender, secret, body, rid, n),
        key=link_key(secret),
        game=game_id(secret),
        sender=sender,
    )
    assert (message.kind, message.sender, message.n, message.body) == (kind, sender, n, body)
    assert message.request_id == (rid if kind in ("cmd", "answer") else "")


@given(secrets_, bodies, request_ids, st.data())
def test_any_change_to_a_signed_message_is_refused_as_forged(
    secret: bytes, body: dict[str, Any], rid: str, data: st.DataObject
) -> None:
    record = json.loads(_message("cmd", "guest", secret, body, rid, 3))
    field = data.draw(st.sampled_from(["id", "n", "body"]))
    changed = {"id": rid + "x", "n": 4, "body": {**body, "op": "peg-forged"}}[field]
    record[field] = changed
    with pytest.raises(RemoteError, match="forged or changed"):
        decode(json.dumps(record).encode(), key=link_key(secret), game=game_id(secret))


@given(secrets_, secrets_)
def test_a_message_signed_with_another_links_key_is_refused(mine: bytes, other: bytes) -> None:
    if mine == other:
        return
    payload = encode(
        "cmd",
        "guest",
        game=game_id(mine),
        key=link_key(other),
        body={"op": "undo"},
        request_id="r1",
    )
    with pytest.raises(RemoteError, match="not the link's"):
        decode(payload, key=link_key(mine), game=game_id(mine))


@given(secrets_)
def test_a_message_of_another_game_or_from_the_wrong_side_is_refused(secret: bytes) -> None:
    key, game = link_key(secret), game_id(secret)
    other = encode("cmd", "guest", game="0" * 16, key=key, body={}, request_id="r")
    with pytest.raises(RemoteError, match="another game"):
        decode(other, key=key, game=game)
    record = json.loads(encode("state", "host", game=game, key=key, body={}))
    record["from"] = "guest"  # a guest may not send the board's state
    with pytest.raises(RemoteError, match="may not send"):
        decode(json.dumps(record).encode(), key=key, game=game)
    answer = encode("answer", "host", game=game, key=key, body={}, request_id="r")
    with pytest.raises(RemoteError, match="not the guest"):
        decode(answer, key=key, game=game, sender="guest")


@given(st.binary(max_size=200))
def test_bytes_that_are_not_a_message_are_refused_with_a_reason(payload: bytes) -> None:
    secret = bytes(SECRET_BYTES)
    with pytest.raises(RemoteError):
        decode(payload, key=link_key(secret), game=game_id(secret))


def test_an_unsigned_or_oversized_message_is_refused() -> None:
    secret = bytes(SECRET_BYTES)
    key, game = link_key(secret), game_id(secret)
    record = json.loads(encode("cmd", "guest", game=game, key=key, body={}, request_id="r"))
    record["hmac"] = ""
    with pytest.raises(RemoteError, match="not signed"):
        decode(json.dumps(record).encode(), key=key, game=game)
    big = encode("cmd", "guest", game=game, key=key, body={"x": "y" * 70000}, request_id="r")
    with pytest.raises(RemoteError, match="larger"):
        decode(big, key=key, game=game)


def test_the_game_id_and_key_differ_for_different_secrets_and_tell_nothing_of_each_other() -> None:
    a, b = bytes(SECRET_BYTES), bytes([1] * SECRET_BYTES)
    assert game_id(a) != game_id(b) and link_key(a) != link_key(b)
    assert game_id(a) not in link_key(a).hex()
    assert len(game_id(a)) == 16 and len(link_key(a)) == 32


@given(st.integers(1, 8), st.lists(st.integers(0, 7), max_size=30), st.randoms())
def test_the_host_runs_each_command_once_in_the_order_made_however_they_arrive(
    count: int, arrivals: list[int], rng: Any
) -> None:
    from boardctl.remote.messages import host_step

    made = [f"r{i}" for i in range(count)]  # the joined board's commands, each after the last
    after = {rid: (made[i - 1] if i else "") for i, rid in enumerate(made)}
    answered: set[str] = set()
    ran: list[str] = []

    def arrive(rid: str) -> None:
        step = host_step(answered.__contains__, rid, after[rid])
        if step == "run":
            ran.append(rid)
            answered.add(rid)

    for index in arrivals:  # whatever the network delivers: lost, doubled, out of order
        arrive(made[index % count])
    while len(answered) < count:  # the joined board sends every unanswered one, oldest first
        pending = [rid for rid in made if rid not in answered]
        for rid in pending:
            if rng.random() < 0.7:  # some are lost again
                arrive(rid)
    assert ran == made
