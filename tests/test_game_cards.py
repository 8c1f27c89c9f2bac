"""Hand and crib entries that name their cards: checked by the scorer, journalled, in history."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cli import main
from boardctl.cribbage.cards import DECK, Card, format_card
from boardctl.cribbage.hand import itemise
from boardctl.cribbage.rules import scoring_for
from boardctl.errors import EntryError
from boardctl.game import JsonValue
from boardctl.game.commands import Cut, Next, Peg, Undo, parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.refusals import Refusal

HOUSE_RULES = st.sampled_from([(), ("runs-of-two",), ("crib-four-flush",)])


def count_by_items(hand: list[Card], starter: Card, *, crib: bool, house: tuple[str, ...]) -> int:
    """The count by listing every combination (not the table scorer the engine asks)."""
    items = itemise(hand, starter, crib=crib, scoring=scoring_for(house))
    return sum(item.points for item in items)


def free_keeper(variant: str = "six-card", house: tuple[str, ...] = ()) -> Scorekeeper:
    return Scorekeeper.memory(
        {"variant": variant, "mode": "free", "names": ["Alice", "Bob"], "house_rules": list(house)}
    )


def guided_keeper() -> Scorekeeper:
    """A guided two-player six-card game in the show: Bob's hand is due (Alice deals)."""
    keeper = Scorekeeper.memory({"variant": "six-card", "names": ["Alice", "Bob"]})
    keeper.apply(Cut(dealer=0))
    keeper.apply(Next())
    keeper.apply(Next())
    assert keeper.state.phase == "show" and keeper.state.to_count == 1
    return keeper


def texts(cards: list[Card]) -> list[str]:
    return [format_card(card) for card in cards]


def deal(variant_hand: int) -> st.SearchStrategy[list[Card]]:
    return st.lists(
        st.sampled_from(DECK), min_size=variant_hand + 1, max_size=variant_hand + 1, unique=True
    )


@settings(max_examples=150, deadline=None)
@given(
    cards=st.one_of(
        st.tuples(st.just("six-card"), st.just("hand"), deal(4)),
        st.tuples(st.just("six-card"), st.just("crib"), deal(4)),
        st.tuples(st.just("five-card"), st.just("hand"), deal(3)),
        st.tuples(st.just("five-card"), st.just("crib"), deal(4)),
    ),
    house=HOUSE_RULES,
    give_points=st.booleans(),
    wrong=st.integers(-3, 40),
)
def test_any_hand_with_its_starter_scores_the_scorers_count_and_no_other(
    cards: tuple[str, str, list[Card]],
    house: tuple[str, ...],
    give_points: bool,
    wrong: int,
) -> None:
    variant, kind, dealt = cards
    *hand, starter = dealt
    expected = count_by_items(hand, starter, crib=kind == "crib", house=house)
    keeper = free_keeper(variant, house)
    command: dict[str, object] = {
        "op": "peg",
        "track": 1,
        "kind": kind,
        "cards": texts(hand),
        "starter": format_card(starter),
    }
    if wrong != expected:
        before = (keeper.state, len(keeper.history()))
        with pytest.raises(EntryError, match=f"count {expected} as a {kind}, not {wrong}"):
            keeper.apply(parse_command({**command, "points": wrong}))
        assert (keeper.state, len(keeper.history())) == before
    if give_points:
        command["points"] = expected
    result = keeper.apply(parse_command(command))
    assert result["event"] == {**command, "points": expected}
    assert keeper.state.tracks[1].front == expected
    row = keeper.history()[-1]
    assert row["count"]["total"] == expected
    assert " ".join(texts(hand)) in row["text"] and f"starter {format_card(starter)}" in row["text"]


BAD = [
    ({"cards": ["5H", "5D", "JS", "1C"], "starter": "5S"}, "'1C' is not a card"),
    ({"cards": ["5H", "5D", "JS", "QC"], "starter": "5X"}, "'5X' is not a card"),
    ({"cards": ["5H", "5H", "JS", "QC"], "starter": "5S"}, "duplicate card 5H"),
    ({"cards": ["5H", "5D", "JS", "QC"], "starter": "JS"}, "duplicate card JS"),
    ({"cards": ["5H", "5D", "JS"], "starter": "5S"}, "has 4 cards, not 3"),
    ({"cards": ["5H", "5D", "JS", "QC", "KD"], "starter": "5S"}, "has 4 cards, not 5"),
    ({"cards": ["5H", "5D", "JS", "QC"]}, "name the starter"),
    (
        {"cards": ["5H", "5D", "JS", "QC"], "starter": "5S", "kind": "pegging"},
        "only a hand or crib",
    ),
    ({"cards": [5, "5D", "JS", "QC"], "starter": "5S"}, "cards must be a list of cards"),
    ({"cards": {"5H": 1}, "starter": "5S"}, "cards must be a list of cards"),
    ({"cards": ["5H", "5D", "JS", "QC"], "starter": 5}, "starter must be a card"),
    ({"starter": "5S", "points": 2}, "a starter alone goes with his heels"),
]


@pytest.mark.parametrize(("fields", "message"), BAD)
def test_malformed_cards_are_refused_and_change_nothing(
    tmp_path: Path, fields: dict[str, object], message: str
) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card", "names": ["Alice", "Bob"]}) as keeper:
        keeper.apply(Cut(dealer=0))
        keeper.apply(Next())
        keeper.apply(Next())
        before = (keeper.state, keeper.history())
        with pytest.raises(EntryError, match=message):
            keeper.apply(parse_command({"op": "peg", "track": 1, **fields}))
        assert (keeper.state, keeper.history()) == before
    with Scorekeeper.open(path) as again:
        assert (again.state, again.history()) == before


@settings(max_examples=100, deadline=None)
@given(
    token=st.text(min_size=1, max_size=4).filter(
        lambda t: t.strip() and " " not in t and "," not in t
    )
)
def test_any_text_that_is_not_a_card_is_refused(token: str) -> None:
    from boardctl.cribbage.cards import parse_card
    from boardctl.errors import CardError

    try:
        parse_card(token)
    except CardError:
        pass
    else:
        return  # a real card spelled some way: not this test's case
    keeper = guided_keeper()
    before = keeper.state
    with pytest.raises(EntryError, match="is not a card"):
        keeper.apply(Peg(1, None, cards=("5H", "5D", token, "QC"), starter="5S"))
    assert keeper.state == before


def test_the_deals_starter_is_kept_checked_and_filled_in() -> None:
    keeper = guided_keeper()
    first = keeper.apply(Peg(1, 18, cards=("5h", "10d", "JS", "QC"), starter="5s"))["event"]
    assert first["cards"] == ["5H", "TD", "JS", "QC"] and first["starter"] == "5S"
    assert keeper.state.starter == "5S"
    with pytest.raises(EntryError, match=r"starter of this deal is 5S .* not 6H"):
        keeper.apply(Peg(0, None, cards=("2H", "3D", "4S", "9C"), starter="6H"))
    with pytest.raises(EntryError, match="5S is this deal's starter") as caught:
        keeper.apply(Peg(0, None, cards=("2H", "3D", "4S", "5S")))  # the deal's starter
    assert caught.value.refusal is Refusal.IMPOSSIBLE
    second = keeper.apply(Peg(0, None, cards=("2H", "3D", "4S", "9C")))["event"]
    assert second["starter"] == "5S" and second["points"] == 6
    crib = keeper.apply(Peg(0, None, cards=("AH", "AD", "KS", "KC")))["event"]
    assert (crib["kind"], crib["points"]) == ("crib", 8)
    # the crib passed the deal on: the next deal has its own starter
    assert keeper.state.deal == 2 and keeper.state.starter is None
    keeper.apply(Next())
    keeper.apply(Next())
    with pytest.raises(EntryError, match="name the starter"):
        keeper.apply(Peg(0, None, cards=("2H", "3D", "4S", "9C")))


def test_undo_forgets_the_starter_its_entry_named() -> None:
    keeper = guided_keeper()
    keeper.apply(Peg(1, None, cards=("5H", "TD", "JS", "QC"), starter="5S"))
    keeper.apply(Undo())
    assert keeper.state.starter is None
    event = keeper.apply(Peg(1, None, cards=("5H", "TD", "JS", "QC"), starter="6C"))["event"]
    assert event["points"] == 9 and keeper.state.starter == "6C"


def test_his_heels_names_its_jack_and_the_counts_keep_it() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "names": ["Alice", "Bob"]})
    keeper.apply(Cut(dealer=0))
    with pytest.raises(EntryError, match="his heels is a jack"):
        keeper.apply(Peg(0, 2, "heels", starter="QS"))
    event = keeper.apply(parse_command({"op": "peg", "track": 0, "starter": "jd"}))["event"]
    assert event == {"op": "peg", "track": 0, "points": 2, "kind": "heels", "starter": "JD"}
    assert "(heels: starter JD)" in keeper.history()[-1]["text"]
    keeper.apply(Next())
    keeper.apply(Next())
    with pytest.raises(EntryError, match="starter of this deal is JD"):
        keeper.apply(Peg(1, None, cards=("5H", "TD", "JS", "QC"), starter="5S"))
    assert keeper.apply(Peg(1, None, cards=("5H", "TD", "JS", "QC")))["event"]["points"] == 16


def test_a_count_with_cards_in_the_play_starts_the_show() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "names": ["Alice", "Bob"]})
    keeper.apply(Cut(dealer=0))
    keeper.apply(Next())
    keeper.apply(Peg(1, 2))  # pegging
    event = keeper.apply(Peg(1, None, cards=("5H", "5D", "5C", "JS"), starter="5S"))["event"]
    assert (event["kind"], event["points"]) == ("hand", 29)
    assert keeper.state.phase == "show" and keeper.state.to_count == 0


def test_a_count_out_of_turn_is_refused_even_with_cards() -> None:
    keeper = guided_keeper()
    with pytest.raises(EntryError, match="Bob counts first"):
        keeper.apply(Peg(0, None, cards=("2H", "3D", "4S", "9C"), starter="5S"))
    assert keeper.state.starter is None


def test_the_events_round_trip_and_the_journal_replays_them(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card", "names": ["Alice", "Bob"]}) as keeper:
        keeper.apply(Cut(dealer=0))
        keeper.apply(Next())
        keeper.apply(Next())
        event = keeper.apply(Peg(1, None, cards=("5H", "TD", "JS", "QC"), starter="5S"))["event"]
        state, history = keeper.state, keeper.history()
    assert parse_command(event).to_json() == event
    for full in (False, True):
        with Scorekeeper.open(path, full_replay=full) as again:
            assert again.state == state and again.state.starter == "5S"
            assert again.history() == history
            with pytest.raises(EntryError, match="starter of this deal is 5S"):
                again.apply(Peg(0, None, cards=("2H", "3D", "4S", "9C"), starter="6H"))
    count = history[-1]["count"]
    assert count["hand"] == ["5H", "TD", "JS", "QC"] and count["starter"] == "5S"
    assert count["said"].endswith("one for his nobs is eighteen")


def test_the_count_follows_the_games_rules() -> None:
    keeper = free_keeper(house=("runs-of-two",))
    event = keeper.apply(Peg(0, None, "hand", ("AH", "2D", "7S", "KC"), "QC"))["event"]
    assert event["points"] == 4  # A-2 and Q-K: two runs of two
    free = free_keeper()
    assert free.apply(Peg(0, None, "hand", ("AH", "2D", "7S", "KC"), "QC"))["event"]["points"] == 0


def _cli(folder: Path, *args: str) -> list[str]:
    return [*args, "--socket", str(folder / "none.sock"), "--journal", str(folder / "j.sqlite")]


def test_the_command_line_enters_a_hand_by_its_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Scorekeeper.open(tmp_path / "j.sqlite", setup={"names": ["Alice", "Bob"]}) as keeper:
        keeper.apply(Cut(dealer=0))
        keeper.apply(Next())
        keeper.apply(Next())
    assert (
        main(_cli(tmp_path, "peg", "2", "6", "--hand", "5h", "10d", "JS", "QC", "--starter", "5S"))
        == 1
    )
    assert "count 18 as a hand, not 6" in capsys.readouterr().err
    assert (
        main(_cli(tmp_path, "peg", "2", "--hand", "5h", "10d", "JS", "QC", "--starter", "5S")) == 0
    )
    assert main(_cli(tmp_path, "peg", "1", "--hand", "2H,3D,4S,9C")) == 0
    assert main(_cli(tmp_path, "peg", "1", "--crib", "AH", "AD", "KS", "KC")) == 0
    assert main(_cli(tmp_path, "peg", "1", "--crib", "AH", "--kind", "hand")) == 1
    assert main(_cli(tmp_path, "peg", "1")) == 1
    assert "give the POINTS" in capsys.readouterr().err
    assert main(_cli(tmp_path, "history")) == 0
    out = capsys.readouterr().out
    assert "Bob +18 (hand: 5H TD JS QC, starter 5S)" in out
    assert "Alice +8 (crib: AH AD KS KC, starter 5S)" in out
    with Scorekeeper.open(tmp_path / "j.sqlite") as keeper:
        assert [t.front for t in keeper.state.tracks] == [14, 18]


def _season(path: Path) -> None:
    """A finished free game: Alice's 29 and Bob's 24 with their cards, Bob's 24 by points only."""
    setup: dict[str, JsonValue] = {
        "variant": "six-card",
        "mode": "free",
        "names": ["Alice", "Bob"],
        "target": 61,
    }
    with Scorekeeper.open(path, setup=setup) as keeper:
        keeper.apply(Peg(0, None, "hand", ("5H", "5C", "5S", "JD"), "5D"))
        keeper.apply(Peg(1, None, "crib", ("3H", "3D", "3S", "3C"), "9C"))
        keeper.apply(Peg(1, 24, "hand"))
        keeper.apply(Peg(0, 28, "correction"))
        keeper.apply(Peg(0, 4, "pegging"))
        assert keeper.state.winner == 0


def test_player_records_count_the_big_hands_and_keep_their_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardctl.cribbage.hand import score_hand
    from boardctl.results.records import records
    from boardctl.results.source import load_games

    path = tmp_path / "j.sqlite"
    _season(path)
    games = load_games(path, board="-")
    shown = [e for e in games[0].entries if e.cards]
    # an independent recount: the scorer on the cards each entry names
    assert [score_hand(e.cards, e.starter, crib=e.kind == "crib").total for e in shown] == [29, 24]
    players = records(games).to_dict()["players"]
    assert isinstance(players, list)
    alice, bob = players
    assert alice["big_hands"] == {"24": 0, "28": 0, "29": 1}
    assert bob["big_hands"] == {"24": 2, "28": 0, "29": 0}  # with cards and by points only
    assert alice["big_hand_cards"] == [
        {
            "points": 29,
            "kind": "hand",
            "cards": ["5H", "5C", "5S", "JD"],
            "starter": "5D",
            "match": 1,
            "game": 1,
            "seq": 2,
        }
    ]
    assert [hand["kind"] for hand in bob["big_hand_cards"]] == ["crib"]
    assert main(["stats", "players", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Alice: 29 (hand 5H 5C 5S JD, starter 5D), game 1 (seq 2)" in out
    assert "Bob: 24 (crib 3H 3D 3S 3C, starter 9C)" in out


def test_the_phone_pages_history_itemises_the_counts_entered_with_cards(tmp_path: Path) -> None:
    from boardctl.web import tools

    path = tmp_path / "j.sqlite"
    _season(path)
    with Scorekeeper.open(path) as keeper:
        rows = tools.history_rows(keeper.history())
    counted = [row for row in rows if "count" in row]
    assert [row["count"]["total"] for row in counted] == [24, 29]  # newest first
    assert counted[1]["count"]["hand"] == ["5H", "5C", "5S", "JD"]
    assert counted[1]["count"]["starter"] == "5D"
    assert counted[0]["count"]["crib"] is True
    assert counted[1]["count"]["said"].endswith("and one for his nobs is twenty-nine")
    # an event naming its cards without the engine's count is counted from cards and starter
    event = {"op": "peg", "kind": "hand", "cards": ["5H", "5C", "5S", "JD"], "starter": "5D"}
    (row,) = tools.history_rows([{"seq": 1, "text": "", "event": event, "scores": [29]}])
    assert row["count"]["total"] == 29


def test_the_cut_names_the_deals_starter(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup={"names": ["Alice", "Bob"]}) as keeper:
        first = keeper.apply(Cut(dealer=0, starter="5s"))["event"]
        assert first == {"op": "cut", "dealer": 0, "drawn": False, "starter": "5S"}
        assert (
            keeper.history()[-1]["text"]
            == "first dealer: seat 1 (set), Alice deals, the starter 5S"
        )
        with pytest.raises(EntryError, match="already 5S"):
            keeper.apply(Cut(starter="6H"))
        keeper.apply(Next())
        keeper.apply(Next())
        assert keeper.apply(Peg(1, None, cards=("5H", "TD", "JS", "QC")))["event"]["points"] == 18
        keeper.apply(Peg(0, 0, "hand"))
        keeper.apply(Peg(0, 0, "crib"))  # the deal passes to Bob: its starter is not known
        with pytest.raises(EntryError, match="is not a card"):
            keeper.apply(Cut(starter="11S"))
        alone = keeper.apply(parse_command({"op": "cut", "starter": "jd"}))["event"]
        assert alone == {"op": "cut", "starter": "JD"}  # no heels pegged: that is an entry
        assert keeper.history()[-1]["text"] == "the starter: JD"
        assert [t.front for t in keeper.state.tracks] == [0, 18]
        with pytest.raises(EntryError, match="already chosen"):
            keeper.apply(Cut())  # without a starter: the first dealer's cut, as before
        state = keeper.state
    with Scorekeeper.open(path) as again:
        assert again.state == state and again.state.starter == "JD"
    free = free_keeper()
    with pytest.raises(EntryError, match="free mode knows no deals"):
        free.apply(Cut(starter="5S"))


def test_the_command_line_cut_names_the_starter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Scorekeeper.open(tmp_path / "j.sqlite", setup={"names": ["Alice", "Bob"]}):
        pass
    assert main(_cli(tmp_path, "cut", "1")) == 0
    assert main(_cli(tmp_path, "cut", "--starter", "5x")) == 1
    assert "'5x' is not a card" in capsys.readouterr().err
    assert main(_cli(tmp_path, "cut", "--starter", "10d")) == 0
    with Scorekeeper.open(tmp_path / "j.sqlite") as keeper:
        assert keeper.state.starter == "TD"
