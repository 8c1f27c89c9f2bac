"""The journal's notices by name (the same in the engine's status and :class:`ViewExtra`), and
their words for ``boardctl status`` and systemd's STATUS= line: a leaf, so a CLI verb need not
load the view."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DAMAGE_KEY = "journal_damage"
FAULT_KEY = "journal_fault"


def journal_status_line(status: dict[str, Any], line: str) -> str:
    """systemd's STATUS= line: the fault alone, or the damage report before the score."""
    fault = status.get(FAULT_KEY)
    if fault:
        return f"JOURNAL FAULT, entries refused: {fault}"
    report = status.get(DAMAGE_KEY)
    if not isinstance(report, dict):
        return line
    recovered = report.get("recovered")
    return f"JOURNAL DAMAGED, {recovered} entries recovered (boardctl status) | {line}"


def damage_lines(status: dict[str, Any]) -> list[str]:
    """A journal fault or damage report as ``boardctl status`` prints it."""
    lines = []
    fault = status.get(FAULT_KEY)
    if fault:
        lines += [
            f"JOURNAL FAULT: {fault}",
            "  (the service is up, shows the fault sign, refuses entries and retries the journal)",
        ]
    report = status.get(DAMAGE_KEY)
    if isinstance(report, dict):
        lines += [
            f"WARNING: {report.get('summary', 'journal damaged')}",
            "  (`boardctl restore` lists the backups; this notice goes when a new game starts)",
        ]
    return lines
