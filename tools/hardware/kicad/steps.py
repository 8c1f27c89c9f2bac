"""The carrier's assembly steps, drawn by ``kicad-cli`` from the board itself.

Each step of the build guide (hardware/build.md, "Assemble the carrier") gets a drawing of
the board as it is after that step: the bare board is its copper and silkscreen as the fab
makes it; after that, a copy of ``carrier.kicad_pcb`` holds only the parts fitted so far,
those of earlier steps marked "do not populate" so that KiCad draws them as outlines, the new
ones solid, and ``kicad-cli pcb export svg`` draws their pads (the solder mask's openings),
the fabrication and the silkscreen layers. The last step has an underside view too (the Pi's
socket is fitted from below). :mod:`tools.hardware.kicad.outputs` writes them into
``hardware/kicad/steps/`` and checks them fresh like the other outputs.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tools.hardware.kicad.sexpr import Node, dump, find, parse, unq

STEP_DIR = "steps"
BARE_LAYERS = "Edge.Cuts,F.Cu,F.Silkscreen"
TOP_LAYERS = "Edge.Cuts,F.Mask,F.Fab,F.Silkscreen"
BOTTOM_LAYERS = "Edge.Cuts,B.Mask,B.Fab,B.Silkscreen"


@dataclass(frozen=True, slots=True)
class Footprint:
    """What a step needs to know of a footprint: its reference and whether it is SMD."""

    ref: str
    smd: bool


def _connector(fp: Footprint) -> bool:
    return fp.ref.startswith(("A", "J"))


def _smd(fp: Footprint) -> bool:
    return fp.smd and not _connector(fp)


def _through_hole(fp: Footprint) -> bool:
    return not fp.smd and not _connector(fp) and not fp.ref.startswith("H")


@dataclass(frozen=True, slots=True)
class Step:
    """One assembly step: its file name, what it fits, and which footprints."""

    name: str
    title: str
    fits: Callable[[Footprint], bool]
    underside: bool = False


STEPS = (
    Step("1-bare", "the bare board", lambda _fp: False),
    Step("2-smd", "the surface-mount parts", _smd),
    Step("3-through-hole", "the through-hole parts", _through_hole),
    Step("4-pico-connectors", "the Pico and the connectors", _connector, underside=True),
)


def footprint_info(node: Node) -> Footprint | None:
    """The reference and kind of a board's ``footprint`` node; None for any other node."""
    if not (isinstance(node, list) and node and node[0] == "footprint"):
        return None
    ref = next(unq(p[2]) for p in find(node, "property") if unq(p[1]) == "Reference")
    attr = find(node, "attr")
    return Footprint(ref, bool(attr) and "smd" in attr[0][1:])


def refs_of(board: Node, step: Step) -> list[str]:
    """The references a step fits, in the board's order."""
    return [fp.ref for node in board if (fp := footprint_info(node)) is not None and step.fits(fp)]


def step_board(board: Node, index: int) -> Node:
    """The board after step ``index``: later parts gone, earlier ones marked DNP; the bare
    board (step 0) whole, since it is drawn without the fabrication layer."""
    if index == 0:
        return board
    out: list[Node] = []
    for node in board:
        fp = footprint_info(node)
        if fp is None or fp.ref.startswith("H"):
            out.append(node)
            continue
        done = [i for i, step in enumerate(STEPS) if step.fits(fp)]
        if not done or done[0] > index:
            continue
        if done[0] < index:
            node = [c if not (isinstance(c, list) and c and c[0] == "attr") else [*c, "dnp"]
                    for c in node]  # fmt: skip
        out.append(node)
    return out


def files() -> list[str]:
    """The drawings' file names, in order."""
    names = [f"{s.name}.svg" for s in STEPS]
    names += [f"{s.name}-underside.svg" for s in STEPS if s.underside]
    return names


def export(pcb: Path, out: Path) -> None:
    """Every step's drawing of the board ``pcb`` into the folder ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    board = parse(pcb.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as scratch:
        for index, step in enumerate(STEPS):
            copy = Path(scratch) / f"{step.name}.kicad_pcb"
            copy.write_text(dump(step_board(board, index)) + "\n", encoding="utf-8")
            layers = BARE_LAYERS if index == 0 else TOP_LAYERS
            views: list[tuple[str, str, list[str]]] = [(f"{step.name}.svg", layers, [])]
            if step.underside:
                views.append((f"{step.name}-underside.svg", BOTTOM_LAYERS, ["--mirror"]))
            for name, layers, extra in views:
                subprocess.run(
                    ["kicad-cli", "pcb", "export", "svg", "--layers", layers, "--mode-single",
                     "--page-size-mode", "2", "--exclude-drawing-sheet",
                     "--sketch-DNP-footprints-on-fab-layers", "--drill-shape-opt", "2", *extra,
                     "-o", str(out / name), str(copy)],
                    check=True, capture_output=True,
                )  # fmt: skip
