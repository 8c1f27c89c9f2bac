"""The generated parts of the build guide in ``hardware/*.md``.

Some figures in the guide must never drift from the code: the pin tables (from
the service's default configuration and :mod:`tools.hardware.pinout`), the
power figures (from the renderer and its limiter), the protection's trip points
(:mod:`tools.hardware.power`, from the carrier's schematic), the layout summaries,
injection points and cut lists (from the layout files), the per-build table and the bill of
materials (:mod:`tools.hardware.bom`). Each lives in its document between
two markers::

    <!-- begin generated: NAME -->
    ...
    <!-- end generated: NAME -->

``python -m tools.hardware.docs --write`` rewrites them;
``python -m tools.hardware.docs --check`` (and the test suite) fails when
one is stale.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from boardctl.errors import HardwareError
from tools import REPO
from tools.hardware import power
from tools.hardware.bom import Build
from tools.hardware.geometry import (
    LEDS_PER_METRE,
    board_geometry,
    injection_leds,
    strip_pieces,
)

HARDWARE_DIR = REPO / "hardware"
REFERENCE_LAYOUT = "two-121"
BRIGHTNESS_LEVELS = (64, 128, 191, 255)


@dataclass(frozen=True, slots=True)
class Section:
    """One generated block: which document, which marker name, what writes it.

    ``exact`` blocks must equal what the code gives. Measured figures
    (``exact=False``, the power table) may drift a little with the renderer's
    theme before the guide needs regenerating: the same text with every number
    within :data:`FIGURE_TOLERANCE` (relative) or 10 units.
    """

    document: str
    name: str
    build: Callable[[], str]
    exact: bool = True


FIGURE_TOLERANCE = 0.05
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def figures_agree(documented: str, generated: str) -> bool:
    """Same text apart from numbers, and every number close (see :class:`Section`)."""
    if _NUMBER.sub("#", documented) != _NUMBER.sub("#", generated):
        return False
    for old, new in zip(_NUMBER.findall(documented), _NUMBER.findall(generated), strict=True):
        a, b = float(old.replace(",", "")), float(new.replace(",", ""))
        if abs(a - b) > max(10.0, FIGURE_TOLERANCE * abs(b)):
            return False
    return True


# --- the blocks -----------------------------------------------------------------------


def pins_section() -> str:
    """The wiring table, from the service's default pins."""
    from boardctl.config import DEFAULT_PINS
    from tools.hardware.pinout import wiring_table

    return wiring_table(DEFAULT_PINS)


def kept_free_section() -> str:
    """The pins the default table leaves free, and why."""
    from tools.hardware.pinout import kept_free_table

    return kept_free_table()


def _carrier_pin(ref: str, net: str) -> str:
    """The pin of carrier part ``ref`` on ``net`` (the schematic's own table)."""
    from tools.hardware.kicad.carrier import carrier_parts

    part = next(p for p in carrier_parts() if p.ref == ref)
    return next(pin for pin, n in sorted(part.nets.items()) if n == net)


def _carrier_part(ref: str) -> tuple[str, str]:
    from tools.hardware.kicad.carrier import carrier_parts

    part = next(p for p in carrier_parts() if p.ref == ref)
    return part.value, part.mpn


def _ohms_text(value: str) -> str:
    """A schematic resistor value in words: ``10k`` -> ``10 kOhm``, ``330`` -> ``330 Ohm``."""
    number = value.split()[0]
    return f"{number[:-1]} kOhm" if number.endswith("k") else f"{number} Ohm"


def pico_data_section() -> str:
    """Pico -> level shifter -> strip terminal, on the carrier: from the schematic's parts and
    the firmware's data pin."""
    from tools.hardware.kicad.carrier import DIN, GND, LED_3V3
    from tools.hardware.pico import firmware_settings, pico_pin

    gp = firmware_settings()["LED_PIN"]
    shifter, _ = _carrier_part("U2")
    rows = [
        "| from | to | notes |",
        "|---|---|---|",
        f"| Pico **GP{gp}** (A1 pin {pico_pin(gp)}) | {shifter} (U2) **A** "
        f"(pin {_carrier_pin('U2', LED_3V3)}) | the strip data pin, `LED_PIN = {gp}` in "
        "`firmware/config.py` |",
        f"| U2 **A** | **{_ohms_text(_carrier_part('R8')[0])}** (R8) -> GND "
        "| pull-down: the strip stays dark while the Pico is unplugged or booting |",
        f"| U2 **OE** (pin {_carrier_pin('U2', GND)}) | GND | output enable is active low: "
        "always on |",
        f"| U2 **Y** (pin {_carrier_pin('U2', 'DIN_BUF')}) "
        f"| **{_ohms_text(_carrier_part('R7')[0])}** (R7) -> J2 **DIN** "
        f"(pin {_carrier_pin('J2', DIN)}) | damps ringing, limits the current into an unpowered "
        "strip |",
        "| J2 **+5V** and **GND** | the strip's input pads, beside the data wire "
        "| twist data and GND together; keep them under 50 cm |",
    ]
    return "\n".join(rows) + "\n"


def pico_uart_section() -> str:
    """Pi <-> Pico UART wiring, from the firmware's UART settings."""
    from tools.hardware.pico import PICO_UART, firmware_settings, nearest_pico_ground, pico_pin

    settings = firmware_settings()
    uart, tx, rx, baud = (settings[k] for k in ("UART_ID", "UART_TX", "UART_RX", "UART_BAUD"))
    for gp, role in ((tx, "TX"), (rx, "RX")):
        if not isinstance(gp, int) or PICO_UART.get(gp) != (uart, role):
            raise HardwareError(f"firmware/config.py: GP{gp} is not UART{uart} {role}")
    tx_pin, rx_pin = pico_pin(tx), pico_pin(rx)
    rows = [
        "| Pi (header pin) | Pico (pin) |",
        "|---|---|",
        f"| GPIO14 TXD (8) | GP{rx} UART{uart} RX ({rx_pin}) |",
        f"| GPIO15 RXD (10) | GP{tx} UART{uart} TX ({tx_pin}) |",
        f"| GND (6) | GND ({nearest_pico_ground(tx_pin)}) |",
        "",
        f"Baud rate {baud:,} (`UART_BAUD` in `firmware/config.py`; set `[link] baudrate` to "
        'the same, and `LINK = "uart"` in the firmware\'s config).',
    ]
    return "\n".join(rows) + "\n"


def pico_buzzer_section() -> str:
    """The piezo driver on the carrier: its pin comes from the firmware's settings."""
    from tools.hardware.pico import firmware_settings, pico_pin

    settings = firmware_settings()
    gp = settings["BUZZER_PIN"]
    if gp == -1:
        return "No piezo: `BUZZER_PIN = -1` in `firmware/config.py`.\n"
    taken = {settings["LED_PIN"]: "LED_PIN", settings["UART_TX"]: "UART_TX"}
    taken[settings["UART_RX"]] = "UART_RX"
    if gp in taken:
        raise HardwareError(f"firmware/config.py: BUZZER_PIN GP{gp} is {taken[gp]} too")
    pin = pico_pin(gp)
    if not isinstance(gp, int):  # (pico_pin has refused anything else)
        raise HardwareError(f"firmware/config.py: BUZZER_PIN {gp!r} is not a GPIO number")
    channel = "AB"[gp & 1]
    transistor, _ = _carrier_part("Q3")
    rows = [
        "| from | to | notes |",
        "|---|---|---|",
        f"| Pico **GP{gp}** (A1 pin {pin}) | **{_ohms_text(_carrier_part('R9')[0])}** (R9) -> "
        f"{transistor} "
        f"(Q3) **base** | `BUZZER_PIN = {gp}` in `firmware/config.py`: the RP2040's PWM slice "
        f"{(gp >> 1) & 7}, channel {channel} |",
        "| J5 pin 1 | piezo **+** | +5 V |",
        "| J5 pin 2 | piezo **-** | Q3's collector, with "
        f"**{_ohms_text(_carrier_part('R10')[0])}** (R10) "
        "across the piezo (a piezo is a capacitor: it needs a path to discharge between "
        "pulses) |",
    ]
    return "\n".join(rows) + "\n"


def firmware_section() -> str:
    """The firmware settings each built-in layout needs."""
    from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
    from tools.hardware.pico import firmware_settings

    shipped = firmware_settings()
    rows = [
        "| layout | `LED_COUNT` | `COLOR_ORDER` | `STATUS_PIXEL` (the layout's status LED) |",
        "|---|---|---|---|",
    ]
    for name in LAYOUT_NAMES:
        layout = builtin_layout(name)
        status = layout.status if layout.status is not None else -1
        rows.append(f'| `{name}` | {layout.led_count} | `"{layout.color_order}"` | {status} |')
    rows += [
        "",
        f"As shipped, `firmware/config.py` has `LED_COUNT = {shipped['LED_COUNT']}`, "
        f'`COLOR_ORDER = "{shipped["COLOR_ORDER"]}"`, `STATUS_PIXEL = {shipped["STATUS_PIXEL"]}`, '
        f'`BUDGET_MA = {shipped["BUDGET_MA"]}`, `LINK = "{shipped["LINK"]}"`.',
    ]
    return "\n".join(rows) + "\n"


def injection_section() -> str:
    """Strip pieces and power feed points of every built-in layout."""
    from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
    from tools.hardware.cutlist import metres_to_buy, real_gaps

    lines = [
        "| layout | LEDs | strip to buy | with real gaps | pieces (jumpers) | feed 5 V + GND at |",
        "|---|---|---|---|---|---|",
    ]
    for name in LAYOUT_NAMES:
        layout = builtin_layout(name)
        geo = board_geometry(layout)
        gapped = real_gaps(layout)
        roles = layout.roles()
        pieces = strip_pieces(geo)
        feeds = "; ".join(f"LED {led} ({roles.get(led, 'unused')})" for led in injection_leds(geo))
        lines.append(
            f"| `{name}` | {layout.led_count} | {metres_to_buy(geo)} m "
            f"| {gapped.led_count} LEDs, {metres_to_buy(board_geometry(gapped))} m "
            f"| {len(pieces)} ({len(pieces) - 1}) | {feeds} |"
        )
    return "\n".join(lines) + "\n"


def cut_list_section() -> str:
    """The cut list of every built-in layout."""
    from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
    from tools.hardware.cutlist import cut_list_table

    out = []
    for name in LAYOUT_NAMES:
        layout = builtin_layout(name)
        out += [f"#### `{name}`", "", cut_list_table(layout, layout.roles())]
    return "\n".join(out)


def _builds() -> list[tuple[str, Build]]:
    from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
    from boardctl.config import DEFAULT_PINS

    return [(name, Build(builtin_layout(name), DEFAULT_PINS)) for name in LAYOUT_NAMES]


def builds_section() -> str:
    """What each built-in layout needs: strip (also with real gaps), inputs, cost."""
    from tools.hardware.bom import total_usd
    from tools.hardware.cutlist import real_gaps

    lines = [
        "| layout | LEDs | strip (1 m lengths) | real gaps: LEDs | real gaps: strip "
        "| buttons | KY-040 | about (USD) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, build in _builds():
        lines.append(
            f"| `{name}` | {build.layout.led_count} | {build.strip_metres()} m "
            f"| {real_gaps(build.layout).led_count} | {build.gaps_strip_metres()} m "
            f"| {build.buttons()} | {build.encoders()} | {total_usd(build):.0f} |"
        )
    return "\n".join(lines) + "\n"


def bom_section() -> str:
    """The bill of materials of every built-in layout."""
    from tools.hardware.bom import bom_table

    out = []
    for name, build in _builds():
        out += [f"### `{name}`", "", bom_table(build)]
    return "\n".join(out)


def layouts_section() -> str:
    """A summary of every built-in layout's arrangement on the board."""
    from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
    from tools.hardware.cutlist import metres_to_buy, real_gaps
    from tools.hardware.geometry import skunk_lines

    out: list[str] = []
    for name in LAYOUT_NAMES:
        layout = builtin_layout(name)
        geo = board_geometry(layout)
        gapped = real_gaps(layout)
        streets = max(r.street for r in geo.rows) + 1
        out.append(f"### `{name}`: {layout.description}")
        out.append("")
        out.append(
            f"- {layout.led_count} LEDs ({layout.led_count / LEDS_PER_METRE:.2f} m of strip, "
            f"{metres_to_buy(geo)} m to buy; with real gaps {gapped.led_count} LEDs, "
            f"{metres_to_buy(board_geometry(gapped))} m to buy), "
            f"colour order {layout.color_order}; {len(layout.tracks)} tracks of "
            f"{layout.hole_count} holes in {streets} streets; drawing "
            f"[drawings/{name}.svg](drawings/{name}.svg), about "
            f"{geo.width:.0f} x {geo.height:.0f} mm as drawn."
        )
        lines = skunk_lines(layout.hole_count)
        if lines:
            where = ", ".join(f"{key} before hole {hole}" for key, hole in lines.items())
            markers = ", ".join(
                f"{key} LED {', '.join(map(str, leds))}" for key, leds in layout.markers.items()
            )
            out.append(f"- Lines: {where}; marker LEDs: {markers or 'none (painted lines)'}.")
        for t, track in enumerate(layout.tracks):
            rows = [r for r in geo.rows if r.track == t]
            runs = ", ".join(
                f"{r.first_hole}-{r.last_hole} "
                f"(LEDs {track.holes[r.first_hole]}->{track.holes[r.last_hole]}, "
                f"{'left to right' if r.step > 0 else 'right to left'})"
                if r.first_hole != r.last_hole
                else f"{r.first_hole} (LED {track.holes[r.first_hole]})"
                for r in rows
            )
            extras = []
            if track.dealer is not None:
                extras.append(f"dealer LED {track.dealer}")
            if track.game_points:
                extras.append(f"game points {', '.join(map(str, track.game_points))}")
            extra = f"; {'; '.join(extras)}" if extras else ""
            out.append(
                f"- Track {t + 1} (`{track.name}`): start hole LED {track.holes[0]}; "
                f"holes {runs}{extra}."
            )
        if layout.status is not None:
            out.append(f"- Status LED {layout.status}.")
        out.append("")
    return "\n".join(out)


#: Where the layout files are, relative to ``hardware/``: the package's own
#: copy, the one the code loads (there is no second copy in ``hardware/``).
LAYOUT_FILES = "../boardctl/board/layouts"


def layout_files_section() -> str:
    """The table of the built-in layout files, linking to the package's files."""
    from boardctl.board.layout import LAYOUT_NAMES, builtin_layout

    rows = [
        "| layout | file | what it is | LEDs | drawing |",
        "|---|---|---|---|---|",
    ]
    for name in LAYOUT_NAMES:
        layout = builtin_layout(name)
        rows.append(
            f"| `{name}` | [{name}.toml]({LAYOUT_FILES}/{name}.toml) | {layout.description} "
            f"| {layout.led_count} | [drawings/{name}.svg](drawings/{name}.svg) |"
        )
    return "\n".join(rows) + "\n"


def power_section() -> str:
    """What the limiter allows on the reference layout at each brightness."""
    from boardctl.board.layout import builtin_layout
    from boardctl.board.power import PowerBudget, estimate_ma, limit_power
    from boardctl.board.render import Renderer, brightness_table
    from boardctl.config import BoardConfig
    from boardctl.view import BoardView, TrackView
    from tools.hardware.pico import firmware_settings

    config = BoardConfig()
    budget = PowerBudget(limit_ma=float(config.power_budget_ma))
    layout = builtin_layout(REFERENCE_LAYOUT)
    n = layout.led_count
    mid_game = BoardView(
        121,
        (TrackView("first", 67, 59, game_points=1), TrackView("second", 54, 48)),
        phase="play",
        dealer=0,
        match_target=3,
    )
    game_over = BoardView(
        121,
        (TrackView("first", 121, 113, game_points=3), TrackView("second", 58, 52)),
        phase="over",
        dealer=1,
        winner=0,
        match_target=3,
        over_at=0.0,
    )
    times = [i / 20 for i in range(0, 20 * 6)]
    lines = [
        f"Budget: `[board] power_budget_ma = {config.power_budget_ma}` (the default), "
        f"{budget.ma_per_channel * 3:.0f} mA per LED at full white, "
        f"{budget.idle_ma_per_led:g} mA idle per LED, {budget.controller_ma:g} mA for the Pico; "
        f"default brightness {config.brightness}/255. Currents are the limiter's estimates "
        "for the LED side (strip + Pico). The firmware enforces its own cap too "
        f"(`BUDGET_MA = {firmware_settings()['BUDGET_MA']}` in `firmware/config.py`); "
        "the lower of the two applies.",
        "",
        "| brightness | frame | estimate (mA) | after the limiter (mA) | limiter scale |",
        "|---|---|---|---|---|",
    ]
    for level in BRIGHTNESS_LEVELS:
        renderer = Renderer(layout, brightness=level)
        frames = {
            "mid-game (two pegs per track, dealer, lines)": renderer.render(mid_game, 10.0),
            "game over, skunk (brightest moment of the animation)": max(
                (renderer.render(game_over, t) for t in times),
                key=lambda f: estimate_ma(f, budget),
            ),
            "every LED full white (worst case)": bytes([brightness_table(level)[255]]) * (3 * n),
        }
        for label, frame in frames.items():
            before = estimate_ma(frame, budget)
            after = estimate_ma(limit_power(frame, budget), budget)
            scale = "1 (not limited)" if after >= before else f"{after / before:.2f}"
            lines.append(
                f"| {level}/255 ({level / 255:.0%}) | {label} | {before:,.0f} | {after:,.0f} "
                f"| {scale} |"
            )
    return "\n".join(lines) + "\n"


SECTIONS: tuple[Section, ...] = (
    Section("README.md", "layout-files", layout_files_section),
    Section("wiring.md", "pico-uart", pico_uart_section),
    Section("wiring.md", "pico-data", pico_data_section),
    Section("wiring.md", "pico-buzzer", pico_buzzer_section),
    Section("wiring.md", "pins", pins_section),
    Section("wiring.md", "kept-free", kept_free_section),
    Section("wiring.md", "injection", injection_section),
    Section("wiring.md", "cut-list", cut_list_section),
    Section("parts.md", "builds", builds_section),
    Section("parts.md", "bom", bom_section),
    Section("geometry.md", "layouts", layouts_section),
    Section("power.md", "power", power_section, exact=False),
    Section("power.md", "power-layouts", power.layouts_table),
    Section("power.md", "power-protection", power.protection_table),
    Section("power.md", "tvs", power.tvs_table),
    Section("power.md", "chargers", power.chargers_table),
    Section("build.md", "bringup-figures", power.bringup_table),
    Section("bringup.md", "firmware", firmware_section),
)


# --- reading and writing the blocks ------------------------------------------------------


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- begin generated: {re.escape(name)} -->\n)(.*?)(<!-- end generated: "
        rf"{re.escape(name)} -->)",
        re.DOTALL,
    )


def read_block(text: str, name: str) -> str:
    """The body of block ``name`` in a document's ``text``."""
    m = _pattern(name).search(text)
    if m is None:
        raise HardwareError(f"no generated block {name!r} (markers missing)")
    return m.group(2)


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the body of block ``name`` replaced by ``body``."""
    read_block(text, name)  # raises when the markers are missing
    return _pattern(name).sub(lambda m: m.group(1) + body + m.group(3), text, count=1)


def stale_sections(folder: Path = HARDWARE_DIR) -> list[str]:
    """``document:name`` of every block whose text differs from what the code gives."""
    stale = []
    for section in SECTIONS:
        text = (folder / section.document).read_text(encoding="utf-8")
        documented, generated = read_block(text, section.name), section.build()
        agree = (lambda a, b: a == b) if section.exact else figures_agree
        if not agree(documented, generated):
            stale.append(f"{section.document}:{section.name}")
    return stale


def write_sections(folder: Path = HARDWARE_DIR) -> list[str]:
    """Rewrite every block; return the ``document:name`` of those that changed."""
    changed = []
    for section in SECTIONS:
        path = folder / section.document
        text = path.read_text(encoding="utf-8")
        new = replace_block(text, section.name, section.build())
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(f"{section.document}:{section.name}")
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--check`` (default) or ``--write``."""
    parser = argparse.ArgumentParser(prog="python -m tools.hardware.docs")
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--check",
        action="store_true",
        help="report stale blocks, exit 1 if any (the default)",
    )
    action.add_argument("--write", action="store_true", help="rewrite the generated blocks")
    parser.add_argument("--dir", type=Path, default=HARDWARE_DIR, help="the hardware folder")
    args = parser.parse_args(argv)
    if args.write:
        for name in write_sections(args.dir):
            print(f"updated {name}")
        return 0
    stale = stale_sections(args.dir)
    for name in stale:
        print(f"stale: {name} (run python -m tools.hardware.docs --write)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
