"""Power cuts of the twin (docs/twin.md): QEMU killed while entries are committed, many times.

Run from the repository root, as root::

    PYTHONPATH=. python benchmarks/bench_twin_power_cuts.py [--cuts 100] [--seed 1]
    PYTHONPATH=. python benchmarks/bench_twin_power_cuts.py --summary

One VM, boardctl installed by ``systemd/install.sh`` (as ``tests/twin`` does), the emulated
Pico on its USB port running the firmware's files as the package carries them (flashing it is
``tests/twin/test_twin_pico.py``'s job), powered with the VM. Each cut
(``tests/twin/cuts.py``): 1-6 entries over the control socket on the first track, each
acknowledged only once on disk, and 1-3 from the buttons on the second, pressed on the GPIO
lines, each acknowledged once the journal's stream reported it; then one more of each in
flight, QEMU SIGKILLed 0-0.5 s after the encoder's push went down (held), the same disks booted
again, the socket's entry in flight sent again with its request id. An acknowledged entry
missing is ``lost``; a track holding more than was entered (the socket's entry counted twice,
more presses than were made) is ``doubled``.

Each cut appends one JSON line to the record (``--record``, committed in
benchmarks/results/), with the commit and the image it ran on, so that cuts from several runs
add up; ``--summary`` totals the record. A cut that lost or doubled an entry is recorded, then
stops the run (exit 1). Each cut costs a boot: about 1-3 minutes under TCG on a shared 2-core
host.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "benchmarks" / "results" / "twin_power_cuts.jsonl"


def commit() -> str:
    """The checkout's commit, with ``+dirty`` when its tracked files differ from it."""
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "boardctl", "systemd",
                            "twin", "tests/twin"], cwd=ROOT).returncode  # fmt: skip
    return head + ("+dirty" if dirty else "")


def summary(record: Path) -> dict[str, Any]:
    rows = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    ready = [r["vm_start_to_ready_s"] for r in rows]
    frame = [r["vm_start_to_first_frame_s"] for r in rows]
    return {
        "cuts": len(rows),
        "runs": len({(r["commit"], r["image"], r["seed"], r["started"]) for r in rows}),
        "lost": sum(r["lost"] for r in rows),
        "doubled": sum(r["doubled"] for r in rows),
        "socket_acked": sum(r["socket_acked"] for r in rows),
        "buttons_journalled": sum(r["buttons_journalled"] for r in rows),
        "vm_start_to_ready_s_median": statistics.median(ready) if ready else None,
        "vm_start_to_first_frame_s_median": statistics.median(frame) if frame else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuts", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--record", type=Path, default=RECORD)
    parser.add_argument("--summary", action="store_true", help="total the record and stop")
    args = parser.parse_args()
    if args.summary:
        print(json.dumps(summary(args.record)))
        return
    sys.path.insert(0, str(ROOT))
    from tests.twin.cuts import PowerCuts
    from tests.twin.pico import PicoOnUsb
    from tests.twin.vm import Twin, build_image, free_port, wheel_folder

    rng = random.Random(args.seed)
    image = build_image(ROOT / "twin")
    run = Path(tempfile.mkdtemp(prefix="boardctl-twin-"))
    twin = Twin(ROOT / "twin", image, run, ssh_port=free_port())
    twin.pico = PicoOnUsb(run, twin.plug_pico)
    twin.pico.files = None  # the package's firmware files
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    base = {"started": started, "commit": commit(), "image": image.name, "seed": args.seed}
    args.record.parent.mkdir(parents=True, exist_ok=True)
    try:
        twin.boot()
        twin.install_boardctl(ROOT, wheel_folder(ROOT))
        cuts = PowerCuts(twin)
        cuts.new_game()
        for cut in range(args.cuts):
            if max(cuts.points) > 100:  # a track near 121 would end the game: a new one
                cuts.new_game()
            trial = cuts.trial(
                f"s{args.seed}c{cut}", rng.randint(1, 6), rng.randint(1, 3), rng.uniform(0, 0.5)
            )
            row = {
                **base,
                "cut": cut,
                **trial,
                "vm_start_to_ready_s": twin.figures["vm_start_to_ready_seen_s"][-1],
                "kernel_start_to_ready_s": twin.figures["kernel_start_to_ready_s"][-1],
                "vm_start_to_first_frame_s": twin.figures["vm_start_to_first_frame_s"][-1],
                "load_average": round(os.getloadavg()[0], 1),
            }
            with args.record.open("a") as record:
                record.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
            if trial["lost"] or trial["doubled"]:
                sys.exit(f"cut {cut}: an entry was lost or counted twice: {trial}")
        print(json.dumps(summary(args.record)))
    finally:
        if twin.running():
            twin.poweroff()
        twin.pico.power_off()
        twin.remove_run_folder()


if __name__ == "__main__":
    main()
