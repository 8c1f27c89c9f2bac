"""Every figure the docs quote names a benchmark that exists and still prints the figure's name.

Figures are quoted in tables (README.md's "Figures", docs/*.md): a row names
the script that measures it, as ``benchmarks/NAME.py`` or as ``NAME.py`` in a
code span. Every script so named must exist in ``benchmarks/``. A table with
a ``printed as`` column quotes, in a code span, the label the script prints
before the figure: the script's source must still contain that label, so a
renamed or removed measurement fails here instead of leaving a figure nobody
can reproduce. (The check reads the scripts; it does not run them.)
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"
SCRIPT = re.compile(r"(?:benchmarks/|`)((?:bench|fuzz|crash|torn|service|loaded|pi)[a-z_]*\.py)")
CODE = re.compile(r"`([^`]+)`")


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def table_rows(text: str) -> list[tuple[list[str], list[str]]]:
    """Every table row of ``text`` with its table's header cells."""
    rows: list[tuple[list[str], list[str]]] = []
    header: list[str] | None = None
    previous = ""
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
        elif re.fullmatch(r"\|[\s:|-]+\|", line.strip()):
            header = [cell.strip() for cell in previous.strip().strip("|").split("|")]
        elif header is not None:
            rows.append((header, [cell.strip() for cell in line.strip().strip("|").split("|")]))
        previous = line
    return rows


def test_every_benchmark_the_docs_name_exists() -> None:
    missing = []
    for document in documents():
        for name in SCRIPT.findall(document.read_text(encoding="utf-8")):
            if not (BENCHMARKS / name).is_file():
                missing.append(f"{document.name}: {name}")
    assert missing == []


def test_every_figure_with_a_printed_name_is_still_printed_by_its_benchmark() -> None:
    checked = 0
    wrong = []
    for document in documents():
        for header, cells in table_rows(document.read_text(encoding="utf-8")):
            if "printed as" not in header or len(cells) != len(header):
                continue
            row = " | ".join(cells)
            scripts = SCRIPT.findall(row)
            labels = CODE.findall(cells[header.index("printed as")])
            assert scripts and labels, f"{document.name}: a figure without its script: {row}"
            for script in scripts:
                source = (BENCHMARKS / script).read_text(encoding="utf-8")
                for label in labels:
                    checked += 1
                    if label not in source:
                        wrong.append(f"{document.name}: {script} no longer prints {label!r}")
    assert wrong == []
    assert checked > 0  # the docs quote at least one figure by its printed name


def test_a_renamed_label_or_a_missing_script_is_caught() -> None:
    text = (
        "| figure | printed as | value | script |\n|---|---|---|---|\n"
        "| x | `no such label` | 1 s | `bench_years.py` |\n"
    )
    ((header, cells),) = table_rows(text)
    label = CODE.findall(cells[header.index("printed as")])[0]
    assert label not in (BENCHMARKS / "bench_years.py").read_text(encoding="utf-8")
    assert SCRIPT.findall("see `bench_gone.py`") == ["bench_gone.py"]
    assert not (BENCHMARKS / "bench_gone.py").exists()
