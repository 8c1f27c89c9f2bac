"""Power cuts of the twin (docs/twin.md): QEMU killed while entries are written, many times.

Run from the repository root, as root::

    PYTHONPATH=. python benchmarks/bench_twin_power_cuts.py [--cuts 100] [--seed 1]

One VM, boardctl installed by ``systemd/install.sh`` (as ``tests/twin`` does), the emulated
Pico on its USB port running the firmware's files as the package carries them (flashing it is
``tests/twin/test_twin_pico.py``'s job), powered with the VM. Each cut:
1-10 entries over the control socket, each acknowledged only once on disk, one more sent,
QEMU SIGKILLed 0-0.5 s later, the same disks booted again, the entry that was in flight
sent again with its request id. The board's points must then equal the entries
acknowledged: any entry lost or counted twice stops the run with an assertion error.
Prints one JSON line per cut and a summary (VM start to READY, the host's and the guest's
view, and VM start to the service's first frame on the Pico's LED pin). Each cut costs a
boot: 1-5 minutes under TCG on a shared 2-core host, so 100 cuts take 2-8 hours.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuts", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.twin.pico import PicoOnUsb
    from tests.twin.vm import (
        Twin,
        build_image,
        free_port,
        power_cut_trial,
        start_power_cut_game,
        wheel_folder,
    )

    rng = random.Random(args.seed)
    run = Path(tempfile.mkdtemp(prefix="boardctl-twin-"))
    twin = Twin(ROOT / "twin", build_image(ROOT / "twin"), run, ssh_port=free_port())
    twin.pico = PicoOnUsb(run, twin.plug_pico)
    twin.pico.files = None  # the package's firmware files
    try:
        twin.boot()
        twin.install_boardctl(ROOT, wheel_folder(ROOT))
        start_power_cut_game(twin)
        acknowledged = 0
        for cut in range(args.cuts):
            if acknowledged > 200:  # a track near 121 would end the game: a new one
                start_power_cut_game(twin)
                acknowledged = 0
            after, delay = rng.randint(1, 10), rng.uniform(0.0, 0.5)
            points = power_cut_trial(twin, f"s{args.seed}c{cut}", after, delay)
            acknowledged += after + 1
            print(json.dumps({"cut": cut, "acked": after, "delay_s": round(delay, 3),
                              "points": points, "expected": acknowledged,
                              "vm_start_to_ready_s": twin.figures["vm_start_to_ready_seen_s"][-1],
                              "vm_start_to_first_frame_s":
                                  twin.figures["vm_start_to_first_frame_s"][-1]}),
                  flush=True)  # fmt: skip
            assert points == acknowledged, "an entry was lost or counted twice"
        seen = twin.figures["vm_start_to_ready_seen_s"]
        kernel = twin.figures["kernel_start_to_ready_s"]
        frame = twin.figures["vm_start_to_first_frame_s"]
        print(json.dumps({
            "cuts": args.cuts, "lost": 0, "doubled": 0,
            "vm_start_to_ready_s_median": statistics.median(seen), "max": max(seen),
            "kernel_start_to_ready_s_median": statistics.median(kernel),
            "vm_start_to_first_frame_s_median": statistics.median(frame), "max_frame": max(frame),
        }))  # fmt: skip
    finally:
        if twin.running():
            twin.poweroff()
        twin.pico.power_off()
        twin.remove_run_folder()


if __name__ == "__main__":
    main()
