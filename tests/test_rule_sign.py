"""The rule set on the LEDs in settings mode: a sign per rule set, golden frames, menu by pins."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board import Renderer, builtin_layout
from boardctl.board.card import card_text
from boardctl.board.frame import pixel
from boardctl.board.overlay import AMBER_DIM, OverlayRenderer
from boardctl.board.rulesign import RULE_COLOURS, rule_legend, rule_sign_holes
from boardctl.board.viewjson import extra_to_dict
from boardctl.config import parse_config
from boardctl.cribbage.rules import RULE_SETS
from boardctl.inputs.panel import SETTING_CHOICES, Panel
from boardctl.link import RecordingLink
from boardctl.view import BoardView, TrackView, ViewExtra
from tests.golden import golden_json
from tests.test_e2e import FAST, Rig
from tests.test_render_golden import _lit, frame_differences

LAYOUT = builtin_layout("two-121")
ROOT = Path(__file__).resolve().parents[1]
RULES_ITEM = list(SETTING_CHOICES).index("rules")


def test_every_rule_set_has_its_own_count_and_colour() -> None:
    names = list(RULE_SETS)
    assert list(SETTING_CHOICES["rules"]) == names  # the menu's choices are the table's
    assert set(RULE_COLOURS) == set(names)
    assert [rule_sign_holes(name) for name in names] == list(range(1, len(names) + 1))
    colours = [colour for colour, _words in RULE_COLOURS.values()]
    assert len(set(colours)) == len(colours)
    assert bytes(colours[0]) != AMBER_DIM and all(bytes(c) != AMBER_DIM for c in colours)
    assert rule_sign_holes("klondike") == 0


def test_the_legend_in_the_docs_and_on_the_card_is_the_table() -> None:
    docs = (ROOT / "docs" / "board.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (holes? 1(?:-\d)? lit [a-z ]+) \| (.+) \|$", docs, re.M)
    rows = [row for row in rows if row[0] in RULE_SETS]
    expected = []
    for name, _sign, title in rule_legend():
        holes = rule_sign_holes(name)
        lit = "hole 1" if holes == 1 else f"holes 1-{holes}"
        expected.append((name, f"{lit} lit {RULE_COLOURS[name][1]}", title))
    assert rows == expected
    card = " ".join(card_text().split())
    for name, sign, _title in rule_legend():
        assert f"{name}: {sign}" in card


def _settings_on_rules(rules: str, steps: int = 0) -> tuple[Panel, ViewExtra]:
    """A panel in settings mode, moved to the rules item, its choice moved ``steps`` on."""
    current = {"target": 121, "variant": "six-card", "preset": "acc", "mode": "guided"}
    current["rules"] = rules
    panel = Panel(tracks=2, current_settings=lambda: current)
    panel.tap("menu", 0.0, hold=1.5)
    for n in range(RULES_ITEM):
        panel.tap("menu", 1.0 + n)
    for n in range(steps):
        panel.tap("track1.plus1", 10.0 + n)
    overlay = panel.overlay()
    assert overlay.settings is not None and overlay.settings.item == "rules"
    return panel, overlay


def _render(overlay: ViewExtra) -> bytes:
    view = BoardView(121, (TrackView("Ann", 30, 20), TrackView("Bo", 12, 5)), extra=overlay)
    return OverlayRenderer(Renderer(LAYOUT), LAYOUT).render(view, 0.0)


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_the_rules_item_lights_the_rule_sets_sign(name: str) -> None:
    _panel, overlay = _settings_on_rules(name)
    assert overlay.settings is not None and overlay.settings.value == name
    frame = _render(overlay)
    holes = rule_sign_holes(name)
    colour = bytes(RULE_COLOURS[name][0])
    shown = [bytes(pixel(frame, LAYOUT.led_of(1, hole))) for hole in range(1, 8)]
    choices = len(RULE_SETS)
    assert shown == [colour] * holes + [AMBER_DIM] * (choices - holes) + [bytes(3)] * (7 - choices)
    # track 1 still says which setting this is: the rules item's hole bright
    items = len(SETTING_CHOICES)
    item_holes = [any(pixel(frame, LAYOUT.led_of(0, h))) for h in range(1, items + 2)]
    assert item_holes == [True] * len(SETTING_CHOICES) + [False]
    assert bytes(pixel(frame, LAYOUT.led_of(0, RULES_ITEM + 1))) == bytes((200, 200, 200))


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_golden_frames_of_the_rule_set_signs(name: str) -> None:
    _panel, overlay = _settings_on_rules(name)
    frame = _render(overlay)
    actual: dict[str, Any] = {
        "layout": "two-121",
        "settings": extra_to_dict(overlay)["settings"],
        "lit": _lit(frame, LAYOUT),
    }
    stored = golden_json(f"frame-settings-rules-{name}.json", actual)
    assert stored["settings"] == actual["settings"]
    differences = frame_differences(stored["lit"], actual["lit"])
    assert not differences, f"{name}: {len(differences)} LEDs differ\n" + "\n".join(differences)


def test_choosing_a_rule_set_in_the_menu_is_a_new_game_with_its_own_points() -> None:
    panel, overlay = _settings_on_rules("acc", steps=4)
    assert overlay.settings is not None and overlay.settings.value == "english"
    assert panel.tap("menu", 20.0, hold=1.5) == []  # a new rule set: the new-game confirm first
    assert (panel.overlay().confirm or {})["rules"] == "english"
    (command,) = panel.tap("menu", 21.0)
    assert command.to_json() == {"op": "new_game", "mode": "guided", "rules": "english"}


def test_the_rule_set_through_the_menu_with_buttons(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    config = parse_config({**FAST, "game": {"mode": "free", "variant": "six-card"}})
    link = RecordingLink()
    rig = Rig(tmp_path, mock_factory, config, link)
    layout = rig.board.layout
    english = bytes(RULE_COLOURS["english"][0])

    def press(name: str, hold: float = 0.008) -> None:
        # a finger is never back on a button within the debounce lockout of its release
        rig.press(name, hold=hold)
        time.sleep(0.02)
        rig.sync()

    try:
        press("menu", hold=0.55)  # held past long_press and released: settings mode
        assert rig.loop.panel.mode == "settings"
        for _ in range(RULES_ITEM):
            press("menu")
        settings = rig.loop.panel.overlay().settings
        assert settings is not None and settings.item == "rules"
        assert pixel(link.frames[-1], layout.led_of(1, 1)) == RULE_COLOURS["acc"][0]
        for _ in range(4):  # acc -> polish -> finnish -> czech -> english
            press("track1.plus1")
        frame = link.frames[-1]
        assert all(bytes(pixel(frame, layout.led_of(1, h))) == english for h in range(1, 6))
        press("menu", hold=0.55)  # apply: the new-game confirm
        assert rig.loop.panel.mode == "confirm"
        press("menu")  # confirmed
        rig.wait_for(lambda: rig.status()["rules"] == "english")
        status = rig.status()
        assert status["preset"] == "english" and status["house_rules"] == ["fraction-lines"]
        assert status["lines"] == [91, 61]
        view = rig.loop.view()
        assert view.skunk_lines == (91, 61) and view.extra.settings is None
    finally:
        rig.close()
