"""Drive the twin VM from the host: build, boot, ssh, the GPIO lines, power off or cut.

The scripts in twin/ do the work (docs/twin.md); this module runs them and waits for
what they promise, with timeouts sized for QEMU's TCG (user space 10-50x slower than
the host's).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tests.twin.pico import PicoOnUsb

T = TypeVar("T")

CACHE = Path(os.environ.get("BOARDCTL_TWIN_CACHE", Path.home() / ".cache" / "boardctl-twin"))
MPREMOTE = "mpremote==1.29.0"  # what `pip install mpremote` gave when the twin was made
PAHO = "paho-mqtt==2.2.0"  # the MQTT extra's one package (pyproject.toml), for a linked board
BOOT_TIMEOUT = 600.0  # seconds to systemd's "running" under TCG on a busy 2-core host
VENV_PYTHON = "/opt/boardctl/venv/bin/python"  # install.sh's virtualenv
SOCKET = "/run/boardctl/control.sock"  # the service's control socket (RuntimeDirectory)
FRAME_TIMEOUT = 300.0  # seconds from READY to the frame on the emulated Pico's pin


def build_image(twin_dir: Path) -> Path:
    """The image's folder: built by twin/build-image.sh, or found in its cache."""
    out = subprocess.run(
        [str(twin_dir / "build-image.sh")], check=True, text=True, stdout=subprocess.PIPE
    )
    return Path(out.stdout.strip().splitlines()[-1])


def wheel_folder(root: Path) -> Path:
    """The pinned requirements' wheels (systemd/requirements.txt), downloaded on the host.

    The VM has no network: install.sh's pip finds them here (PIP_FIND_LINKS, PIP_NO_INDEX).
    """
    requirements = root / "systemd" / "requirements.txt"
    key = hashlib.sha256(requirements.read_bytes()).hexdigest()[:16]
    folder = CACHE / f"wheels-{key}"
    if not folder.is_dir():
        partial = CACHE / f"wheels-{key}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run(
            ["python3", "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
             "--only-binary=:all:", "-r", str(requirements), "-d", str(partial)],
            check=True,
        )  # fmt: skip
        partial.rename(folder)
    return folder


def downloaded(requirement: str) -> Path:
    """``requirement``'s wheels and its dependencies', downloaded on the host (cached): what
    ``pip install`` fetches on a Pi, for the VM without network. ``MPREMOTE``: what
    hardware/bringup.md installs; ``PAHO``: what the MQTT extra adds (docs/remote.md)."""
    folder = CACHE / requirement.replace("==", "-")
    if not folder.is_dir():
        partial = CACHE / f"{folder.name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run(
            ["python3", "-m", "pip", "download", "--quiet", "--only-binary=:all:",
             requirement, "-d", str(partial)],
            check=True,
        )  # fmt: skip
        partial.rename(folder)
    return folder


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(what: str, probe: Callable[[], T | None], timeout: float, every: float = 0.5) -> T:
    """``probe()``'s first value that is not None, asked until ``timeout`` seconds pass."""
    end = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > end:
            raise TimeoutError(f"twin: no {what} within {timeout:.0f} s")
        time.sleep(every)


class Twin:
    """One VM: its run folder (disks, sockets, console log) and the ways into it."""

    def __init__(
        self, twin_dir: Path, image: Path, run: Path, *, ssh_port: int, broker_port: int = 0
    ) -> None:
        self.twin_dir, self.image, self.run, self.ssh_port = twin_dir, image, run, ssh_port
        self.broker_port = broker_port  # the guest's 10.0.2.100:1883 (boot.sh), when not 0
        self.figures: dict[str, Any] = {}
        self.pico: PicoOnUsb | None = None  # the Pico on its USB port, powered with the VM
        self._gpio: socket.socket | None = None
        self._gpio_buffer = b""
        self._gpio_lock = threading.Lock()  # the test's presses and the Pico's plug share it

    # -- power ---------------------------------------------------------------------------
    def boot(self) -> float:
        """Start QEMU and wait for systemd's ``running``; the seconds it took."""
        start = time.monotonic()
        self.power_on()
        self.wait_running()
        seconds = time.monotonic() - start
        self.figures.setdefault("boots_to_running_s", []).append(round(seconds, 1))
        return seconds

    def power_on(self) -> None:
        """Start QEMU (and the Pico powered with it); return at once."""
        env = dict(os.environ, SSH_PORT=str(self.ssh_port))
        if self.broker_port:
            env["BROKER_PORT"] = str(self.broker_port)
        if self.pico is not None:
            self.pico.power_on()
        subprocess.run([str(self.twin_dir / "boot.sh"), str(self.image), str(self.run)],
                       check=True, env=env)  # fmt: skip
        if self.pico is not None:
            self.pico.connect(self.run / "pico.sock")

    def wait_running(self) -> None:
        """Wait for systemd's ``running`` (every unit of the boot started); then the Pico's
        USB plug follows the chip (the guest's agent is up)."""

        def state() -> str | None:
            done = self.ssh("systemctl is-system-running --wait", check=False, timeout=60)
            return done.stdout.strip() if done.stdout.strip() in ("running", "degraded") else None

        self.figures["system_state"] = wait_for("systemd running", state, BOOT_TIMEOUT, every=2)
        self.share_ssh()
        if self.pico is not None:
            self.pico.follow_plug()

    def pid(self) -> int | None:
        try:
            return int((self.run / "qemu.pid").read_text())
        except (OSError, ValueError):
            return None

    def running(self) -> bool:
        pid = self.pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    def poweroff(self, pico_after_s: float = 0.0) -> None:
        """``systemctl poweroff`` in the guest; wait until QEMU has exited. The Pico, on its
        own supply, runs ``pico_after_s`` more seconds of its time (with no Pi on its USB)
        before its power goes too."""
        self.close_gpio()
        self.ssh("systemctl poweroff", check=False, timeout=30)
        wait_for("QEMU exit", lambda: True if not self.running() else None, 300)
        if self.pico is not None:
            self.pico.disconnect()
            if pico_after_s and self.pico.chip is not None:
                self.pico.chip.run_for(pico_after_s)
            self.pico.power_off()

    def cut_power(self) -> None:
        """SIGKILL QEMU: the guest loses whatever it had not flushed to its disks."""
        self.close_gpio()
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
        wait_for("QEMU exit", lambda: True if not self.running() else None, 30)
        if self.pico is not None:
            self.pico.power_off()

    def state_disk(self, request: str) -> str:
        """``debugfs``'s answer to ``request`` on the state disk (``/var/lib/boardctl``),
        read from the host while QEMU is not running."""
        assert not self.running()
        done = subprocess.run(["debugfs", "-R", request, str(self.run / "state.img")],
                              check=True, capture_output=True, text=True)  # fmt: skip
        return done.stdout

    def remove_run_folder(self) -> None:
        shutil.rmtree(self.run, ignore_errors=True)

    # -- ssh -----------------------------------------------------------------------------
    def ssh_options(self) -> list[str]:
        """ssh's options; a command goes through the connection ``share_ssh`` opened, while
        it lasts (no key exchange and login under TCG for each), or else connects itself."""
        return [
            "-q", "-i", str(self.image / "id_ed25519"), "-p", str(self.ssh_port),
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "ConnectTimeout=10", "-o", "BatchMode=yes",
            "-o", f"ControlPath={self.run / 'ssh.control'}",
        ]  # fmt: skip

    def ssh_command(self, command: str) -> list[str]:
        return ["ssh", *self.ssh_options(), "-o", "ControlMaster=no", "root@127.0.0.1", command]

    def share_ssh(self) -> None:
        """One ssh connection for the commands that follow, kept in the background until
        the VM goes (a cut or a poweroff ends it)."""
        subprocess.run(
            ["ssh", *self.ssh_options(), "-o", "ControlMaster=yes", "-o", "ControlPersist=yes",
             "-N", "-f", "root@127.0.0.1"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            timeout=120, check=False,
        )  # fmt: skip

    def ssh(
        self, command: str, *, check: bool = True, timeout: float = 120, stdin: Any = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``command`` as root in the guest."""
        try:
            done = subprocess.run(
                self.ssh_command(command), text=stdin is None, stdin=stdin,
                capture_output=True, timeout=timeout,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            if check:
                raise
            return subprocess.CompletedProcess(command, 255, "", "timeout")
        if not isinstance(done.stdout, str):
            done = subprocess.CompletedProcess(
                command, done.returncode, done.stdout.decode(), done.stderr.decode()
            )
        if check and done.returncode != 0:
            raise AssertionError(
                f"twin: {command!r} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
            )
        return done

    def copy_folder(self, folder: Path, guest: str) -> None:
        """``folder``'s files into the guest's folder ``guest`` (made anew)."""
        tar = subprocess.Popen(["tar", "-C", str(folder), "-cf", "-", "."], stdout=subprocess.PIPE)
        self.ssh(f"rm -rf {guest} && mkdir -p {guest} && tar -x --no-same-owner -C {guest}",
                 stdin=tar.stdout, timeout=300)  # fmt: skip
        assert tar.wait() == 0

    # -- installing boardctl --------------------------------------------------------------
    def install_boardctl(self, root: Path, wheels: Path) -> None:
        """What the docs tell a maker: the checkout on the Pi, then ``sudo sh systemd/install.sh``.

        The checkout is the repository's files (as a clone has them); the pinned wheels go
        in a folder that pip reads through PIP_FIND_LINKS, with PIP_NO_INDEX (no network).
        """
        files = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root, check=True, stdout=subprocess.PIPE,
        ).stdout  # fmt: skip
        names = b"\0".join(n for n in files.split(b"\0") if n and (root / n.decode()).exists())
        tar = subprocess.Popen(
            ["tar", "-C", str(root), "--null", "-T", "-", "-cf", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        assert tar.stdin is not None and tar.stdout is not None
        tar.stdin.write(names)
        tar.stdin.close()
        self.ssh(
            "rm -rf /home/pi/boardctl && mkdir -p /home/pi/boardctl"
            " && tar -x --no-same-owner -C /home/pi/boardctl && chown -R pi:pi /home/pi/boardctl",
            stdin=tar.stdout, timeout=300,
        )  # fmt: skip
        assert tar.wait() == 0
        self.copy_folder(wheels, "/home/pi/wheels")
        start = time.monotonic()
        done = self.ssh(
            "cd /home/pi && BOARDCTL_SHUTDOWN_BUTTON=no BOARDCTL_OVERLAYFS=no"
            " PIP_NO_INDEX=1 PIP_FIND_LINKS=/home/pi/wheels sh boardctl/systemd/install.sh",
            check=False, timeout=1200,
        )  # fmt: skip
        self.figures["install_s"] = round(time.monotonic() - start, 1)
        self.install_output = done.stdout + done.stderr
        if done.returncode != 0:
            raise AssertionError(f"install.sh exited {done.returncode}:\n{self.install_output}")

    # -- the GPIO lines -------------------------------------------------------------------
    def gpio(self, command: str) -> str:
        """One command to the guest's GPIO agent (twin/guest/.../gpio-agent.py); its reply."""
        with self._gpio_lock:
            return self._gpio_command(command)

    def _gpio_command(self, command: str) -> str:
        if self._gpio is None:
            self._gpio = socket.socket(socket.AF_UNIX)
            self._gpio.settimeout(30)
            self._gpio.connect(str(self.run / "gpio.sock"))
            self._gpio_buffer = b""
        self._gpio.sendall(command.encode() + b"\n")
        while b"\n" not in self._gpio_buffer:
            data = self._gpio.recv(4096)
            if not data:
                raise EOFError("twin: the GPIO agent's port closed")
            self._gpio_buffer += data
        line, self._gpio_buffer = self._gpio_buffer.split(b"\n", 1)
        reply = line.decode().strip()
        if not reply.startswith("ok"):
            raise AssertionError(f"twin: gpio {command!r}: {reply}")
        return reply[3:]

    def close_gpio(self) -> None:
        with self._gpio_lock:
            if self._gpio is not None:
                self._gpio.close()
                self._gpio = None

    def plug_pico(self, plugged: bool) -> None:
        """Plug the Pico's USB gadget in the guest, or unplug it."""
        self.gpio(f"usb {int(plugged)}")

    def press(self, line: int, hold: float = 0.2) -> None:
        """Press a button wired to ``line`` (active low, as the board's buttons are)."""
        self.gpio(f"set {line} 0")
        time.sleep(hold)  # the contact closed for a human's press; the service times edges
        self.gpio(f"set {line} 1")

    # -- boardctl in the guest -------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        done = self.ssh("boardctl status --json", timeout=120)
        value: dict[str, Any] = json.loads(done.stdout)
        return value

    def service_frame(self) -> bytes:
        """The frame the service rendered last (its control socket's ``frame``), as RGB."""
        done = self.ssh(
            f"{VENV_PYTHON} -c 'from boardctl.service.client import request;"
            f' print(request("{SOCKET}", {{"op": "frame"}}, timeout=120)["rgb"])\''
        )
        return bytes.fromhex(done.stdout.strip())

    def figures_to(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.figures, indent=1) + "\n")


# -- boot figures ------------------------------------------------------------------------------
def boot_to_ready(twin: Twin) -> float:
    """Boot; wait until boardctl is active (READY), then for the rest of the boot; the
    seconds from QEMU's start to READY.

    Keeps two figures: the host's (VM start to the first ``is-active`` seen, which includes
    ssh's own slowness) and the guest's (kernel start to the unit's READY, from systemd).
    """
    start = time.monotonic()
    twin.power_on()

    def active() -> bool | None:
        state = twin.ssh("systemctl is-active boardctl", check=False).stdout.strip()
        return True if state == "active" else None

    wait_for("boardctl active after the boot", active, BOOT_TIMEOUT, every=1.0)
    seconds = time.monotonic() - start
    twin.figures.setdefault("vm_start_to_ready_seen_s", []).append(round(seconds, 1))
    shown = twin.ssh("systemctl show boardctl -p ActiveEnterTimestampMonotonic").stdout
    kernel_to_ready = int(shown.strip().split("=", 1)[1]) / 1e6
    twin.figures.setdefault("kernel_start_to_ready_s", []).append(round(kernel_to_ready, 1))
    twin.wait_running()
    twin.figures.setdefault("boots_to_running_s", []).append(round(time.monotonic() - start, 1))
    if twin.pico is not None:  # the service's first frame, as the Pico's LED pin drew it
        first = twin.pico.first_frame_showing(twin.service_frame(), FRAME_TIMEOUT)
        twin.figures.setdefault("vm_start_to_first_frame_s", []).append(round(first, 1))
    return seconds
