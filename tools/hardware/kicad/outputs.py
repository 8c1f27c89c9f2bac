"""The carrier's exported outputs, made by KiCad's own ``kicad-cli`` from the generated project.

``python -m tools.hardware.kicad.outputs`` (from the repository's root, with KiCad 9 installed)
runs the electrical rules check, which must find nothing, and writes into ``hardware/kicad/``:
the schematic as PDF, the bill of materials with manufacturer part numbers (CSV) and KiCad's
netlist (XML, which the tests check against the code's pin tables). ``--check`` exports again
into a scratch folder and names every committed output that differs (the PDF's and the
netlist's time stamps aside).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tools.hardware.kicad.carrier import KICAD_DIR, PROJECT

SCHEMATIC = f"{PROJECT}.kicad_sch"
OUTPUTS = (f"{PROJECT}.pdf", f"{PROJECT}-bom.csv", f"{PROJECT}-netlist.xml")
BOM_FIELDS = ("Reference,Value,MPN,Footprint,${QUANTITY}", "Refs,Value,MPN,Footprint,Qty")
#: What changes from one export to the next without the design changing.
_STAMPS = (
    re.compile(rb"/CreationDate \(D:\d+\)"),
    re.compile(rb"/ModDate \(D:\d+\)"),
    re.compile(rb"<date>[^<]*</date>"),
    re.compile(rb"<source>[^<]*</source>"),
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


def _unstamped(data: bytes) -> bytes:
    for stamp in _STAMPS:
        data = stamp.sub(b"", data)
    return data


def stale_outputs(folder: Path = KICAD_DIR) -> list[str]:
    with tempfile.TemporaryDirectory() as scratch:
        export(Path(scratch), folder)
        return [
            name
            for name in OUTPUTS
            if not (folder / name).is_file()
            or _unstamped((folder / name).read_bytes())
            != _unstamped((Path(scratch) / name).read_bytes())
        ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="ERC, then name stale outputs")
    args = parser.parse_args(argv)
    violations = erc_violations()
    if violations:
        print(f"ERC:\n{violations}", file=sys.stderr)
        return 1
    if args.check:
        stale = stale_outputs()
        for name in stale:
            print(f"stale: {name} (run: python -m tools.hardware.kicad.outputs)", file=sys.stderr)
        return 1 if stale else 0
    export(KICAD_DIR)
    for name in OUTPUTS:
        print(KICAD_DIR / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
