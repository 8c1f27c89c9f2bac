"""The carrier's exported outputs, made by KiCad's own ``kicad-cli`` from the generated project.

``python -m tools.hardware.kicad.outputs`` (from the repository's root, with KiCad 9 installed)
runs the electrical rules check and the board's design rules check, which must find no
error and nothing unconnected, and writes into ``hardware/kicad/``: the schematic as PDF, the
bill of materials with manufacturer part numbers (CSV), KiCad's netlist (XML, which the tests
check against the code's pin tables), the schematic as SVG, and from the board
(:mod:`tools.hardware.kicad.board`) the fabrication files in ``fab/``: Gerbers, Excellon drill
files, the placement file; 3D renders of both sides (PNG) and a drawing of each assembly step
in ``steps/`` (:mod:`tools.hardware.kicad.steps`). ``--check`` builds the board again (the
router: a minute or two) and exports everything again into a scratch folder, and names every
committed file that differs (time stamps aside; the renders, which depend on the machine's
OpenGL, only have to exist).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tools.hardware.kicad import board, steps
from tools.hardware.kicad.carrier import KICAD_DIR, PROJECT

SCHEMATIC = f"{PROJECT}.kicad_sch"
PCB = f"{PROJECT}.kicad_pcb"
OUTPUTS = (f"{PROJECT}.pdf", f"{PROJECT}-bom.csv", f"{PROJECT}-netlist.xml", f"{PROJECT}.svg")
FAB = "fab"
GERBER_LAYERS = "F.Cu,B.Cu,F.Paste,B.Paste,F.SilkS,B.SilkS,F.Mask,B.Mask,Edge.Cuts"
RENDERS = (f"{PROJECT}-top.png", f"{PROJECT}-bottom.png")
BOM_FIELDS = ("Reference,Value,MPN,Footprint,${QUANTITY}", "Refs,Value,MPN,Footprint,Qty")
#: What changes from one export to the next without the design changing.
_STAMPS = (
    re.compile(rb"/CreationDate \(D:\d+\)"),
    re.compile(rb"/ModDate \(D:\d+\)"),
    re.compile(rb"<date>[^<]*</date>"),
    re.compile(rb"<source>[^<]*</source>"),
    re.compile(rb"%TF\.CreationDate,[^*]*\*%"),
    re.compile(rb"G04 Created by KiCad[^*]*\*"),
    re.compile(rb"; DRILL file \{[^}]*\} date [^\n]*"),
    re.compile(rb"; FORMAT=[^\n]*"),
    re.compile(rb"; #@! TF\.CreationDate,[^\n]*"),
    re.compile(rb"## Created on [^\n]*"),
    re.compile(rb'"CreationDate": *"[^"]*"'),
    re.compile(rb"<title>SVG Image created as [^<]*</title>"),
)


def _cli(*args: str, cwd: Path) -> None:
    subprocess.run(["kicad-cli", *args], cwd=cwd, check=True, capture_output=True)


def erc_violations(folder: Path = KICAD_DIR) -> str:
    """The ERC report's violations (every severity); empty when the schematic is clean."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "erc.rpt"
        _cli("sch", "erc", "--severity-all", "-o", str(report), SCHEMATIC, cwd=folder)
        lines = report.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if line.startswith(("[", "    ")))


def drc_violations(folder: Path = KICAD_DIR) -> tuple[list[str], list[str], int]:
    """The board's design rules check: its errors, its warnings (each a line of KiCad's
    JSON report: the rule, its description, the items) and how many items are unconnected."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "drc.json"
        _cli("pcb", "drc", "--severity-all", "--format", "json", "-o", str(report), PCB,
             cwd=folder)  # fmt: skip
        data = json.loads(report.read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {"error": [], "warning": []}
    for violation in data.get("violations", []):
        items = "; ".join(i.get("description", "") for i in violation.get("items", []))
        text = f"{violation.get('type')}: {violation.get('description')} ({items})"
        found.setdefault(violation.get("severity", "error"), []).append(text)
    unconnected = len(data.get("unconnected_items", []))
    return found["error"], found["warning"], unconnected


def export_board(out: Path, folder: Path = KICAD_DIR, *, renders: bool = True) -> None:
    """The board's fabrication files into ``out/fab`` and its renders into ``out``."""
    fab = out.resolve() / FAB
    fab.mkdir(parents=True, exist_ok=True)
    _cli(
        "pcb",
        "export",
        "gerbers",
        "--layers",
        GERBER_LAYERS,
        "--no-protel-ext",
        "-o",
        str(fab),
        PCB,
        cwd=folder,
    )
    _cli(
        "pcb",
        "export",
        "drill",
        "--format",
        "excellon",
        "--excellon-separate-th",
        "--generate-map",
        "--map-format",
        "pdf",
        "-o",
        str(fab) + "/",
        PCB,
        cwd=folder,
    )
    _cli(
        "pcb",
        "export",
        "pos",
        "--format",
        "csv",
        "--units",
        "mm",
        "--use-drill-file-origin",
        "--side",
        "both",
        "-o",
        str(fab / f"{PROJECT}-pos.csv"),
        PCB,
        cwd=folder,
    )
    for made in fab.iterdir():
        made.write_bytes(_unstamped(made.read_bytes()))
    drawn = out.resolve() / steps.STEP_DIR
    steps.export(folder.resolve() / PCB, drawn)
    for made in drawn.iterdir():
        made.write_bytes(_unstamped(made.read_bytes()))
    if renders:
        for name, side in zip(RENDERS, ("top", "bottom"), strict=True):
            _cli(
                "pcb",
                "render",
                "--side",
                side,
                "--quality",
                "high",
                "--background",
                "opaque",
                "-w",
                "1600",
                "-h",
                "1100",
                "-o",
                str(out.resolve() / name),
                PCB,
                cwd=folder,
            )


def export(out: Path, folder: Path = KICAD_DIR) -> None:
    """Every output of the schematic in ``folder`` into ``out``."""
    out = out.resolve()
    _cli("sch", "export", "pdf", "-o", str(out / OUTPUTS[0]), SCHEMATIC, cwd=folder)
    fields, labels = BOM_FIELDS
    _cli("sch", "export", "bom", "--fields", fields, "--labels", labels,
         "--group-by", "Value,MPN,Footprint", "-o", str(out / OUTPUTS[1]), SCHEMATIC,
         cwd=folder)  # fmt: skip
    netlist = out / OUTPUTS[2]
    _cli("sch", "export", "netlist", "--format", "kicadxml", "-o", str(netlist), SCHEMATIC,
         cwd=folder)  # fmt: skip
    netlist.write_bytes(_unstamped(netlist.read_bytes()))
    with tempfile.TemporaryDirectory() as scratch:
        _cli("sch", "export", "svg", "--exclude-drawing-sheet", "-o", scratch, SCHEMATIC,
             cwd=folder)  # fmt: skip
        svg = Path(scratch) / OUTPUTS[3]
        (out / OUTPUTS[3]).write_bytes(_unstamped(svg.read_bytes()))


def _unstamped(data: bytes) -> bytes:
    for stamp in _STAMPS:
        data = stamp.sub(b"", data)
    return data


def stale_outputs(folder: Path = KICAD_DIR) -> list[str]:
    with tempfile.TemporaryDirectory() as scratch:
        export(Path(scratch), folder)
        export_board(Path(scratch), folder, renders=False)
        fresh = sorted(f"{FAB}/{p.name}" for p in (Path(scratch) / FAB).iterdir())
        kept = (
            sorted(f"{FAB}/{p.name}" for p in (folder / FAB).glob("*"))
            if (folder / FAB).is_dir()
            else []
        )
        drawn = [f"{steps.STEP_DIR}/{name}" for name in steps.files()]
        stale = [
            name
            for name in (*OUTPUTS, *fresh, *drawn)
            if not (folder / name).is_file()
            or _unstamped((folder / name).read_bytes())
            != _unstamped((Path(scratch) / name).read_bytes())
        ]
        stale += [name for name in kept if name not in fresh]
        stale += [name for name in RENDERS if not (folder / name).is_file()]
        return stale


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="ERC, then name stale outputs")
    args = parser.parse_args(argv)
    violations = erc_violations()
    if violations:
        print(f"ERC:\n{violations}", file=sys.stderr)
        return 1
    errors, _warnings, unconnected = drc_violations()
    if errors or unconnected:
        print("DRC:", *errors, f"{unconnected} unconnected", sep="\n", file=sys.stderr)
        return 1
    if args.check:
        stale = [PCB] if board.stale() else []
        stale += stale_outputs()
        for name in stale:
            command = "board" if name == PCB else "outputs"
            print(f"stale: {name} (run: python -m tools.hardware.kicad.{command})", file=sys.stderr)
        return 1 if stale else 0
    export(KICAD_DIR)
    shutil.rmtree(KICAD_DIR / FAB, ignore_errors=True)
    shutil.rmtree(KICAD_DIR / steps.STEP_DIR, ignore_errors=True)
    export_board(KICAD_DIR)
    for name in (*OUTPUTS, *RENDERS, FAB, steps.STEP_DIR):
        print(KICAD_DIR / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
