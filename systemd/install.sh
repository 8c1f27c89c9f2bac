#!/bin/sh
# Install boardctl as a systemd service on Raspberry Pi OS (Bookworm or later).
#
#   git clone <this repository> boardctl && sudo sh boardctl/systemd/install.sh
#
# What it does: installs python3-venv and the distribution's GPIO libraries,
# creates the system user "boardctl" (groups gpio and dialout), a virtualenv in
# /opt/boardctl/venv with boardctl installed from this checkout (the command
# linked into /usr/local/bin), a commented
# default /etc/boardctl/config.toml (kept if present), the udev rule for the
# Pico (hardware/99-boardctl.rules), and enables and starts boardctl.service.
# It asks (default no) whether to add the shutdown button, the read-only
# overlay root and the network for a board linked with another home's (the drop-in
# systemd/boardctl.service.d/remote.conf, docs/remote.md); BOARDCTL_SHUTDOWN_BUTTON,
# BOARDCTL_OVERLAYFS and BOARDCTL_REMOTE=yes/no answer without asking.
# Run it again to upgrade. DRY_RUN=1 prints the commands instead of running them.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${PREFIX:-/opt/boardctl}
VENV="$PREFIX/venv"
UNIT_DIR=${UNIT_DIR:-/etc/systemd/system}
CONFIG_DIR=${CONFIG_DIR:-/etc/boardctl}
UDEV_DIR=${UDEV_DIR:-/etc/udev/rules.d}
MODULES_DIR=${MODULES_DIR:-/etc/modules-load.d}
BIN_DIR=${BIN_DIR:-/usr/local/bin}
SERVICE_USER=boardctl

run() {
    if [ -n "${DRY_RUN:-}" ]; then
        echo "+ $*"
    else
        "$@"
    fi
}

if [ -z "${DRY_RUN:-}" ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo sh $0)" >&2
    exit 1
fi

# Python and the GPIO back-end gpiozero prefers on a Pi (lgpio).
run apt-get update
run apt-get install -y --no-install-recommends python3-venv python3-lgpio

# The service user: no login, no home; gpio for buttons, dialout for the Pico.
for group in gpio dialout; do
    getent group "$group" >/dev/null || run groupadd --system "$group"
done
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    run useradd --system --user-group --no-create-home --home-dir /var/lib/boardctl \
        --shell /usr/sbin/nologin --groups gpio,dialout "$SERVICE_USER"
else
    run usermod -aG gpio,dialout "$SERVICE_USER"
fi

# The virtualenv sees the system site-packages, so the apt GPIO libraries work.
run install -d -m 0755 "$PREFIX"
run python3 -m venv --system-site-packages "$VENV"
# Pinned, hash-checked dependencies (systemd/requirements.txt), never "whatever is newest";
# then boardctl itself from this checkout, built with the pinned setuptools.
run "$VENV/bin/pip" install --quiet --require-hashes --no-deps -r "$SRC/systemd/requirements.txt"
run "$VENV/bin/pip" install --quiet --no-deps --no-build-isolation --upgrade "$SRC"
# The boardctl command for everyone (status, peg, ...), from the virtualenv.
run install -d -m 0755 "$BIN_DIR"
run ln -sf "$VENV/bin/boardctl" "$BIN_DIR/boardctl"

# Configuration: a commented file with every default, never overwritten.
run install -d -m 0755 "$CONFIG_DIR"
if [ ! -e "$CONFIG_DIR/config.toml" ]; then
    if [ -n "${DRY_RUN:-}" ]; then
        echo "+ boardctl run --print-config > $CONFIG_DIR/config.toml"
    else
        "$VENV/bin/boardctl" run --print-config > "$CONFIG_DIR/config.toml"
        chmod 0644 "$CONFIG_DIR/config.toml"
    fi
fi

# The USB serial drivers loaded at every boot, not only when a device comes: the unit's
# DeviceAllow=char-ttyACM / char-ttyUSB find their major numbers when the service starts,
# so a Pico plugged in later would stay "Operation not permitted" until a restart.
if [ -n "${DRY_RUN:-}" ]; then
    echo "+ (one a line) cdc_acm usbserial > $MODULES_DIR/boardctl.conf"
else
    mkdir -p "$MODULES_DIR"
    printf '%s\n' cdc_acm usbserial > "$MODULES_DIR/boardctl.conf"
    modprobe -a cdc_acm usbserial 2>/dev/null || true
fi

# The udev rule: /dev/boardctl-leds for the Pico, group dialout.
if [ -f "$SRC/hardware/99-boardctl.rules" ]; then
    run install -m 0644 "$SRC/hardware/99-boardctl.rules" "$UDEV_DIR/99-boardctl.rules"
    run udevadm control --reload
    run udevadm trigger --subsystem-match=tty
fi

# Optional, asked (never forced): a shutdown/wake button, the read-only root.
# Without a terminal the answer is no, unless BOARDCTL_SHUTDOWN_BUTTON=yes or
# BOARDCTL_OVERLAYFS=yes says otherwise (hardware/bringup.md section 6).
ask() {  # ask QUESTION ANSWER: ANSWER (yes/no) if set, else the terminal's, else no
    case "${2:-}" in
        yes | no) [ "$2" = yes ]; return ;;
    esac
    [ -t 0 ] || return 1
    printf '%s [y/N] ' "$1"
    read -r reply || return 1
    case "$reply" in [yY]*) return 0 ;; *) return 1 ;; esac
}
BOOT_CONFIG=${BOOT_CONFIG:-/boot/firmware/config.txt}
STATE_DIR=${STATE_DIR:-/var/lib/boardctl}
[ -e "$BOOT_CONFIG" ] || [ ! -e /boot/config.txt ] || BOOT_CONFIG=/boot/config.txt
SHUTDOWN_GPIO=$(PYTHONPATH="$SRC" python3 -c \
    'from boardctl.config import SHUTDOWN_GPIO; print(SHUTDOWN_GPIO)')
if ask "Shutdown button on GPIO$SHUTDOWN_GPIO (press: clean shutdown; press again: wake)?" \
    "${BOARDCTL_SHUTDOWN_BUTTON:-}"; then
    if grep -qs '^dtoverlay=gpio-shutdown' "$BOOT_CONFIG"; then
        echo "install.sh: $BOOT_CONFIG already has a gpio-shutdown line; left as it is"
    else
        run sh -c "echo 'dtoverlay=gpio-shutdown,gpio_pin=$SHUTDOWN_GPIO' >> '$BOOT_CONFIG'"
        echo "install.sh: the shutdown button works after the next reboot"
    fi
fi
if ask "Read-only root file system (overlay), the journal on its own partition?" \
    "${BOARDCTL_OVERLAYFS:-}"; then
    if mountpoint -q "$STATE_DIR"; then
        run raspi-config nonint do_overlayfs 0
        echo "install.sh: the root file system is read-only after the next reboot"
    else
        echo "install.sh: $STATE_DIR is not a partition of its own: overlay not enabled" >&2
        echo "  (it would keep the score journal in RAM; see hardware/bringup.md section 6)" >&2
    fi
fi

run install -m 0644 "$SRC/systemd/boardctl.service" "$UNIT_DIR/boardctl.service"
# The network for the service of a board linked with another home's (docs/remote.md).
if ask "Link this board with a board in another home (its service gets the network)?" \
    "${BOARDCTL_REMOTE:-}"; then
    run install -D -m 0644 "$SRC/systemd/boardctl.service.d/remote.conf" \
        "$UNIT_DIR/boardctl.service.d/remote.conf"
fi
# Shows the fault sign on the LEDs when systemd gives up restarting the service.
run install -m 0644 "$SRC/systemd/boardctl-fault.service" "$UNIT_DIR/boardctl-fault.service"
# On the disk before the service is enabled: a power cut after this line leaves a whole install.
run sync
run systemctl daemon-reload
run systemctl enable boardctl.service
run systemctl restart boardctl.service

echo "boardctl is installed. Check it with: systemctl status boardctl"
echo "To use the boardctl command without sudo: sudo usermod -aG boardctl \$USER (then log in again)"
