"""``boardctl firmware install``: an UPDATE message to the running controller, then the files
of firmware/package.json copied by one mpremote session, main.py last. mpremote is a fake on
PATH here that records its arguments; tests/test_firmware_install_wheel.py runs the real one
from the installed wheel against the emulated Pico."""

from __future__ import annotations

import ast
import json
import os
import stat
import tty
from pathlib import Path

import pytest

from boardctl.cli import main
from boardctl.errors import ConfigError, LinkError
from boardctl.link import protocol as p
from boardctl.link.firmware import find_mpremote, firmware_files, install_command
from tests.conftest import REPO


def fake_mpremote(folder: Path, status: int = 0) -> Path:
    """An ``mpremote`` that writes its arguments as JSON next to itself."""
    program = folder / "mpremote"
    program.write_text(
        "#!/usr/bin/env python3\n"
        "import json, pathlib, sys\n"
        "pathlib.Path(sys.argv[0]).with_suffix('.json').write_text(json.dumps(sys.argv[1:]))\n"
        f"sys.exit({status})\n"
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


def test_the_package_json_names_the_files_with_the_protocol_by_reference() -> None:
    files = firmware_files()
    names = [name for _source, name in files]
    assert names[-1] == "main.py"  # last: the controller starts at the next boot
    assert sorted(names) == [
        "buzzer.py",
        "config.py",
        "fast.py",
        "framing.py",
        "hw.py",
        "ledctl.py",
        "main.py",
        "protocol.py",
        "usb.py",
        "ws2812.py",
    ]
    sources = dict((name, source) for source, name in files)
    assert sources["protocol.py"] == REPO / "boardctl" / "link" / "protocol.py"
    assert not (REPO / "firmware" / "protocol.py").exists()  # no copy is kept
    package = json.loads((REPO / "firmware" / "package.json").read_text())
    assert {name for name, _url in package["urls"]} == set(names)  # the mip form of the list


def test_the_package_json_version_is_the_firmwares_own() -> None:
    # ledctl.FIRMWARE_VERSION is the source (the controller's HELLO says it); mip reads this one
    source = (REPO / "firmware" / "ledctl.py").read_text()
    (assigned,) = [
        node.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "FIRMWARE_VERSION"
    ]
    version = ast.literal_eval(assigned)
    package = json.loads((REPO / "firmware" / "package.json").read_text())
    assert package["version"] == ".".join(map(str, version))


def test_install_runs_one_mpremote_session_main_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_mpremote(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    controller_fd, port_fd = os.openpty()  # the Pico's port, as the host sees it
    tty.setraw(port_fd)
    port = os.ttyname(port_fd)
    try:
        assert main(["firmware", "install", "--port", port]) == 0
        os.set_blocking(controller_fd, False)
        heard = p.Decoder().feed(os.read(controller_fd, 4096))
    finally:
        os.close(controller_fd)
        os.close(port_fd)
    # First the running controller is asked for its REPL (UPDATE), then mpremote copies.
    assert heard == [p.Message(p.UPDATE, 0, p.UPDATE_KEY)]
    argv = json.loads((tmp_path / "mpremote.json").read_text())
    # (resume: no soft reset, which would stop update mode's watchdog feeding)
    assert argv[:3] == ["connect", port, "resume"] and argv[-1] == "reset"
    copies = [argv[i + 1 : i + 3] for i, word in enumerate(argv) if word == "cp"]
    assert [target for _source, target in copies] == [
        ":protocol.py",
        ":fast.py",
        ":framing.py",
        ":hw.py",
        ":ws2812.py",
        ":usb.py",
        ":ledctl.py",
        ":buzzer.py",
        ":config.py",
        ":main.py",
    ]
    for source, target in copies:
        assert Path(source).name == target[1:] and Path(source).is_file()
    assert argv.count("+") == len(copies)  # one session: each cp ended by "+"
    assert "firmware installed" in capsys.readouterr().out


def test_a_failing_mpremote_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_mpremote(tmp_path, status=1)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert main(["firmware", "install", "--no-update-mode"]) == 1
    assert "safe mode" in capsys.readouterr().err
    assert main(["firmware", "install", "--port", str(tmp_path / "no-such-port")]) == 1
    assert "stop boardctl first" in capsys.readouterr().err  # the port would not open


def test_dry_run_prints_and_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = fake_mpremote(tmp_path)
    assert main(["firmware", "install", "--dry-run", "--mpremote", str(program)]) == 0
    assert not (tmp_path / "mpremote.json").exists()
    out = capsys.readouterr().out
    assert out.startswith(f"{program} connect auto resume cp ") and out.rstrip().endswith("+ reset")


def test_missing_mpremote_and_a_wrong_folder_say_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("sys.executable", str(tmp_path / "python3"))
    with pytest.raises(LinkError, match=r"pip install 'boardctl\[firmware\]'"):
        find_mpremote()
    with pytest.raises(ConfigError, match="not a firmware folder"):
        install_command("auto", tmp_path, "mpremote")
    (tmp_path / "package.json").write_text('{"urls": [["a.py", "a.py"]]}')
    with pytest.raises(ConfigError, match="names files that are not there"):
        install_command("auto", tmp_path, "mpremote")
