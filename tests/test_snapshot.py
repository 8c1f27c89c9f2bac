"""PNG pictures and ``boardctl snapshot``: pixels at known hole positions, CLI, errors."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import cast

import pytest
from PIL import Image

from boardctl.board.demo import DEMOS
from boardctl.board.frame import pixel
from boardctl.board.layout import builtin_layout
from boardctl.board.render import Renderer
from boardctl.board.snapshot import HOLE, Picture, PictureError, draw_png, save_png
from boardctl.board.theme import ORANGE, SKY_BLUE, VERMILION, display_colour
from boardctl.cli import main
from boardctl.game.commands import parse_command
from boardctl.view import BoardView, TrackView

LAYOUT = builtin_layout("two-121")


def test_every_led_of_the_layout_has_a_place_in_the_picture() -> None:
    view, _ = DEMOS["mid-game"]
    picture = Picture(LAYOUT, view, scale=1)
    assert sorted(picture.leds) == list(range(LAYOUT.led_count))
    assert len(set(picture.leds.values())) == LAYOUT.led_count  # no two on one spot


def test_holes_in_rows_of_thirty_in_groups_of_five() -> None:
    view, _ = DEMOS["mid-game"]
    picture = Picture(LAYOUT, view, scale=1)
    xs = [picture.leds[LAYOUT.led_of(0, h)][0] for h in range(1, 31)]
    steps = [b - a for a, b in itertools.pairwise(xs)]
    assert steps == [16, 16, 16, 16, 24] * 5 + [16, 16, 16, 16]
    # hole 31 starts the next row, below hole 1 of both tracks
    x1, y1 = picture.leds[LAYOUT.led_of(0, 1)]
    x31, y31 = picture.leds[LAYOUT.led_of(0, 31)]
    assert x31 == x1 and y31 > picture.leds[LAYOUT.led_of(1, 1)][1] > y1


@pytest.mark.parametrize("scale", [1, 2])
def test_png_pixels_at_known_holes(tmp_path: Path, scale: int) -> None:
    view, now = DEMOS["rejected"]
    frame = Renderer(LAYOUT).render(view, now)
    path = save_png(view, frame, LAYOUT, tmp_path / "board.png", scale=scale)
    image = Image.open(path).convert("RGB")
    picture = Picture(LAYOUT, view, scale=scale)
    assert image.size == (picture.width, picture.height)

    def at(led: int) -> tuple[int, int, int]:
        # Pillow types a pixel as any band layout; an RGB image's is three ints.
        return cast("tuple[int, int, int]", image.getpixel(picture.leds[led]))

    assert at(LAYOUT.led_of(0, 67)) == display_colour(ORANGE)  # Alice's front peg
    assert at(LAYOUT.led_of(1, 82)) == display_colour(SKY_BLUE)  # Bob's front peg
    assert at(LAYOUT.led_of(0, 59)) == display_colour(pixel(frame, LAYOUT.led_of(0, 59)))
    assert at(LAYOUT.led_of(0, 0)) == display_colour(VERMILION)  # error flash on the start holes
    assert at(LAYOUT.led_of(0, 66)) == HOLE  # dark hole
    assert at(LAYOUT.led_of(1, 121)) == HOLE
    for led in range(LAYOUT.led_count):  # every LED drawn as in the frame
        colour = pixel(frame, led)
        assert at(led) == (display_colour(colour) if any(colour) else HOLE), led


def test_draw_png_of_three_tracks() -> None:
    layout = builtin_layout("three-121")
    view = BoardView(121, (TrackView("A", 1), TrackView("B", 2), TrackView("C", 3, 1)))
    frame = Renderer(layout).render(view, 0.0)
    image = draw_png(view, frame, layout, scale=1)
    picture = Picture(layout, view, scale=1)
    assert image.getpixel(picture.leds[layout.led_of(2, 3)]) == display_colour((204, 121, 167))


def test_missing_pillow_says_which_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    view, now = DEMOS["new-game"]
    with pytest.raises(PictureError, match=r"boardctl\[png\]"):
        save_png(view, Renderer(LAYOUT).render(view, now), LAYOUT, tmp_path / "x.png")


def test_unwritable_path_is_a_clear_error(tmp_path: Path) -> None:
    view, now = DEMOS["new-game"]
    with pytest.raises(PictureError, match="cannot write the picture"):
        save_png(view, Renderer(LAYOUT).render(view, now), LAYOUT, tmp_path / "no" / "x.png")


# --- the command line --------------------------------------------------------


def test_cli_demo_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "skunk.png"
    assert main(["snapshot", str(path), "--demo", "skunk", "--scale", "1"]) == 0
    image = Image.open(path).convert("RGB")
    view, _ = DEMOS["skunk"]
    picture = Picture(LAYOUT, view, scale=1)
    assert image.getpixel(picture.leds[LAYOUT.led_of(0, 121)]) == display_colour(ORANGE)
    assert image.getpixel(picture.leds[252]) == display_colour(
        (240, 228, 66)
    )  # skunk marker blinking on
    assert "wrote" in capsys.readouterr().err


def test_cli_state_file_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "view.json"
    state.write_text(
        json.dumps(
            {
                "target": 61,
                "tracks": [{"name": "Ann", "front": 12, "back": 4}, {"name": "Bo", "front": 3}],
                "dealer": 1,
                "now": 5.0,
            }
        )
    )
    png = tmp_path / "b.png"
    args = ["--state", str(state), "--layout", "two-61", "--text", "--color", "none"]
    code = main(["snapshot", str(png), *args])
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith("two-61 · game to 61 · phase play · Bo deals")
    assert "Ann        .  ...a. ..... .A..." in out
    assert png.exists() and Image.open(png).size[0] > 500


def test_cli_demo_without_file_needs_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "--demo", "pending"]) == 1
    assert "give a PNG file to write, or --text" in capsys.readouterr().err


def test_cli_bad_state_names_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "bad.json"
    state.write_text(json.dumps({"target": 121, "tracks": [{"name": "A", "front": "x"}]}))
    assert main(["snapshot", "--state", str(state), "--text"]) == 1
    assert "tracks[0].front must be a whole number" in capsys.readouterr().err
    state.write_text("{nope")
    assert main(["snapshot", "--state", str(state), "--text"]) == 1
    assert "not valid JSON" in capsys.readouterr().err


def test_cli_layout_that_does_not_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "--demo", "mid-game", "--text", "--layout", "two-61"]) == 1
    assert "61 holes per track but the game is played to 121" in capsys.readouterr().err


def test_display_colour_keeps_hue_and_lifts_faint_light() -> None:
    assert display_colour((0, 0, 0)) == (0, 0, 0)
    assert display_colour((255, 255, 255)) == (255, 255, 255)
    assert display_colour((16, 8, 0)) == (64, 32, 0)  # 16 -> 64, green kept at half
    r, g, b = display_colour(ORANGE)
    assert r > ORANGE[0] and abs(g / r - ORANGE[1] / ORANGE[0]) < 0.01 and b == 0


def test_readme_picture_is_the_mid_game_demo() -> None:
    """docs/images/board.png comes from ``boardctl snapshot docs/images/board.png --demo``."""
    path = Path(__file__).resolve().parent.parent / "docs" / "images" / "board.png"
    image = Image.open(path).convert("RGB")
    view, now = DEMOS["mid-game"]
    frame = Renderer(LAYOUT).render(view, now)
    picture = Picture(LAYOUT, view, scale=2)
    assert image.size == (picture.width, picture.height)
    for led, xy in picture.leds.items():
        colour = pixel(frame, led)
        assert image.getpixel(xy) == (display_colour(colour) if any(colour) else HOLE), led


def test_cli_inline_state_and_its_errors(capsys: pytest.CaptureFixture[str]) -> None:
    inline = json.dumps({"target": 121, "tracks": [{"front": 5}, {"front": 9, "back": 3}]})
    assert main(["snapshot", "--state", inline, "--text", "--color", "none"]) == 0
    out = capsys.readouterr().out
    assert out.endswith("game\n")  # the shell prompt starts on a line of its own
    assert "track 2    .  ..b.. ...B." in out
    assert main(["snapshot", "--state", "{bad", "--text"]) == 1
    assert "--state: not valid JSON" in capsys.readouterr().err
    for tracks, message in [
        ([{"front": 500}], "tracks[0].front 500 is not a score 0-121"),
        ([{"front": 5, "back": -1}], "tracks[0].back -1 is not a score 0-121"),
        ([{"front": 5, "back": 9}], "tracks[0].back 9 is ahead of front"),
    ]:
        bad = json.dumps({"target": 121, "tracks": tracks})
        assert main(["snapshot", "--state", bad, "--text"]) == 1
        assert message in capsys.readouterr().err


def test_cli_draws_the_current_game_from_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardctl.game.keeper import Scorekeeper

    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    assert main(["snapshot", "--text", "--color", "none"]) == 0
    assert "drawing the demo position 'mid-game'" in capsys.readouterr().err  # no journal yet
    journal = tmp_path / "journal.sqlite"  # the default under $STATE_DIRECTORY
    with Scorekeeper.open(journal, setup={"players": 3, "names": ["Ann", "Bo", "Cy"]}) as keeper:
        keeper.apply(parse_command({"op": "cut", "dealer": 1}))
        keeper.apply(parse_command({"op": "peg", "track": 2, "points": 7, "kind": "correction"}))
    png = tmp_path / "game.png"
    assert main(["snapshot", str(png), "--text", "--color", "none"]) == 0  # three tracks: three-121
    out = capsys.readouterr().out
    assert out.startswith("three-121 · game to 121 · phase deal · Bo deals")
    assert "Cy         c  ..... .C..." in out
    assert Image.open(png).size[0] > 500
    journal = tmp_path / "journal.sqlite"
    assert main(["snapshot", "--journal", str(journal), "--text", "--color", "none"]) == 0
    assert capsys.readouterr().out == out
    assert main(["snapshot", "--journal", str(tmp_path / "none.sqlite"), "--text"]) == 1
    assert "no journal at" in capsys.readouterr().err


def test_cli_text_board_on_an_ascii_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="ascii"))
    assert main(["snapshot", "--demo", "skunk", "--text", "--color", "none"]) == 0
    sys.stdout.flush()
    text = raw.getvalue().decode("ascii")
    assert text.startswith("two-121 . game to 121 . phase over")
    assert "Alice      .  ..... ....." in text


def test_cli_state_from_standard_input_takes_the_status_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from boardctl.game.keeper import Scorekeeper

    keeper = Scorekeeper.memory({"variant": "six-card", "names": ["Ann", "Bo"]})
    keeper.apply(parse_command({"op": "cut", "dealer": 1}))
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 4, "kind": "correction"}))
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(keeper.status())))
    assert main(["snapshot", "--state", "-", "--text", "--color", "none"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("two-121 · game to 121 · phase deal · Bo deals")
    assert "Ann        a  ...A." in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("{oops"))
    assert main(["snapshot", "--state", "-", "--text"]) == 1
    assert "standard input: not valid JSON" in capsys.readouterr().err
