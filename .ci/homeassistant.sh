#!/usr/bin/env bash
# Home Assistant core from PyPI, in its own virtualenv on Python 3.13, for tests/test_homeassistant.py
# (a test-only client of `boardctl mqtt`: boardctl itself never imports it).
#
# Prints the virtualenv's python on stdout. Exits 3, saying why, where no Python 3.13 exists
# (the test then skips with that reason). The virtualenv is cached between runs in
# ~/.cache/boardctl-ci/homeassistant-<hash of this script and the interpreter>, so a warm run takes
# a second; an older cache key's folder is removed once the new one is complete.
#
# What is pinned, and why:
# - homeassistant==HA_VERSION, exactly (Home Assistant 2025.4 needs Python >= 3.13);
# - everything else by Home Assistant's own constraint set, the package_constraints.txt inside its
#   wheel: its dependencies and the requirements (exact pins in their manifest.json) of the
#   integrations it always loads (bootstrap's CORE_ and DEFAULT_INTEGRATIONS), of the ones the test
#   configures (INTEGRATIONS) and of their dependencies. Home Assistant then runs with --skip-pip:
#   the test never installs anything.
set -euo pipefail

HA_VERSION=2025.4.4
# The integrations of the configuration.yaml that tests/homeassistant.py writes, and MQTT (the test
# adds it through its config flow).
INTEGRATIONS="api config http onboarding websocket_api mqtt"

python=""
for candidate in "${BOARDCTL_HA_PYTHON:-}" "$(command -v python3.13 || true)" \
    "$HOME"/.pyenv/versions/3.13*/bin/python3.13; do
    if [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" -c '' 2>/dev/null; then
        python=$candidate
        break
    fi
done
if [ -z "$python" ]; then
    echo "no Python 3.13 (Home Assistant $HA_VERSION needs it): not on PATH, not in ~/.pyenv/versions," \
        "no BOARDCTL_HA_PYTHON" >&2
    exit 3
fi

cache="${BOARDCTL_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/boardctl-ci}"
key=$( { cat "$0"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)
venv="$cache/homeassistant-$key"
mkdir -p "$cache"
exec 9>"$cache/homeassistant.lock"
flock 9  # one install at a time; a second caller waits for it and then finds it done

if [ ! -f "$venv/complete" ]; then
    started=$(date +%s)
    rm -rf "$venv"
    log="$cache/homeassistant-install.log"
    echo "installing Home Assistant $HA_VERSION into $venv (several minutes; log: $log)" >&2
    if ! {
        "$python" -m venv "$venv" &&
        pip=("$venv/bin/python" -m pip --disable-pip-version-check) &&
        "${pip[@]}" install --no-deps "homeassistant==$HA_VERSION" &&
        constraints=$("$venv/bin/python" -c \
            'import homeassistant, pathlib; print(pathlib.Path(homeassistant.__file__).parent / "package_constraints.txt")') &&
        "${pip[@]}" install -c "$constraints" "homeassistant==$HA_VERSION" &&
        # shellcheck disable=SC2086
        requirements=$("$venv/bin/python" - $INTEGRATIONS <<'EOF'
import json
import sys
from pathlib import Path

import homeassistant
from homeassistant.bootstrap import CORE_INTEGRATIONS, DEFAULT_INTEGRATIONS

components = Path(homeassistant.__file__).parent / "components"
todo, seen, requirements = {*CORE_INTEGRATIONS, *DEFAULT_INTEGRATIONS, *sys.argv[1:]}, set(), set()
while todo:
    domain = todo.pop()
    seen.add(domain)
    manifest = json.loads((components / domain / "manifest.json").read_text())
    todo |= set(manifest.get("dependencies", [])) - seen
    requirements |= set(manifest.get("requirements", []))
print("\n".join(sorted(requirements)))
EOF
        ) &&
        # shellcheck disable=SC2086
        "${pip[@]}" install -c "$constraints" $requirements
    } >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        exit 1
    fi
    touch "$venv/complete"  # only a whole install counts: a broken one is installed again
    echo "installed in $(($(date +%s) - started)) s" >&2
    for old in "$cache"/homeassistant-*/; do
        [ "${old%/}" = "$venv" ] || rm -rf "${old%/}"
    done
fi
echo "$venv/bin/python"
