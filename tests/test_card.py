"""``boardctl card``: the quick-reference card, drawn from the panel's and the signs' tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from boardctl.board.card import OTHER_SIGNS, SIZE, card_text, draw_card
from boardctl.board.signs import legend
from boardctl.cli import main
from boardctl.inputs.panel import GESTURES


def test_the_card_names_every_gesture_and_every_sign() -> None:
    text = card_text()
    for gesture, meaning in GESTURES:
        assert f"{gesture}: {meaning}" in text
    for refusal, sign, meaning in legend():
        assert f"{refusal.value.replace('_', ' ')}: {sign}; {meaning}" in text
    for sign, meaning in OTHER_SIGNS:
        assert f"{sign}: {meaning}" in text


def test_the_card_is_4x6_inches_and_its_text_fits() -> None:
    image = draw_card()
    assert image.size == SIZE == (1200, 1800)
    bottom = image.crop((0, SIZE[1] - 40, SIZE[0], SIZE[1]))
    assert bottom.getextrema() == ((255, 255),) * 3  # nothing drawn past the margin


def test_boardctl_card_writes_png_and_pdf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["card", str(tmp_path / "lid")]) == 0
    assert (tmp_path / "lid.pdf").read_bytes().startswith(b"%PDF")
    with Image.open(tmp_path / "lid.png") as png:
        assert png.size == SIZE
    assert "wrote" in capsys.readouterr().out
    assert main(["card", "--text"]) == 0
    assert capsys.readouterr().out == card_text()


def test_the_readme_picture_is_the_card() -> None:
    root = Path(__file__).resolve().parents[1]
    with Image.open(root / "docs" / "images" / "card.png") as stored:
        assert stored.convert("RGB").tobytes() == draw_card().tobytes()
    assert "docs/images/card.png" in (root / "README.md").read_text(encoding="utf-8")


def test_a_card_into_a_missing_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardctl.board.card import save_card
    from boardctl.board.snapshot import PictureError
    from boardctl.errors import BoardError

    missing = tmp_path / "no-such-folder" / "lid"
    with pytest.raises(PictureError, match="cannot write the card") as caught:
        save_card(missing)
    assert isinstance(caught.value, BoardError) and isinstance(caught.value, RuntimeError)
    assert main(["card", str(missing)]) == 1
    assert "lid.png: cannot write the card (No such file or directory)" in capsys.readouterr().err
    assert not missing.parent.exists()
