"""Every pointer from the code to the docs leads somewhere: ``(docs/NAME.md, 'Section')`` in
``boardctl/`` names a file in docs/ that has that section, as a heading or as the bold lead of
a paragraph or list item (``**Section.**``). A docstring that says "see there" instead of
repeating it must not point at nothing."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
POINTER = re.compile(r"docs/([\w.-]+\.md)(?:,\s*[\"'“‘]([^\"'”’]+)[\"'”’])?")


def places(doc: Path) -> list[str]:
    """The headings and the bold paragraph leads of ``doc``, lower-cased."""
    found = []
    for line in doc.read_text(encoding="utf-8").splitlines():
        line = line.removeprefix("- ")  # (a list item's bold lead counts too)
        if line.startswith("#"):
            found.append(line.lstrip("#").strip().lower())
        elif line.startswith("**"):
            found.append(line[2:].split("**", 1)[0].lower())
    return found


def test_every_pointer_to_the_docs_names_a_file_and_a_section_that_exist() -> None:
    wrong = []
    pointers = 0
    for source in sorted((REPO / "boardctl").rglob("*.py")):
        text = " ".join(source.read_text(encoding="utf-8").split())  # one line: wrapped pointers
        for match in POINTER.finditer(text):
            pointers += 1
            doc = REPO / "docs" / match.group(1)
            where = f"{source.relative_to(REPO)}: docs/{match.group(1)}"
            if not doc.is_file():
                wrong.append(f"{where}: no such file")
            elif match.group(2) and not any(
                match.group(2).strip().lower() in place for place in places(doc)
            ):
                wrong.append(f"{where}: no section {match.group(2)!r}")
    assert pointers > 20  # the code points at the docs in many places
    assert wrong == []
