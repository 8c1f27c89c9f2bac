#!/bin/bash
# Build the twin's disk image: Debian trixie (amd64) from Debian packages, the Debian
# kernel, gpio-sim built from Debian's own kernel source, lgpio built from PyPI's sdist.
#
#   sudo twin/build-image.sh        prints the image's folder (the last line of output)
#
# The image is kept in $BOARDCTL_TWIN_CACHE/<hash of its inputs>/ (default
# ~/.cache/boardctl-twin/): this script, the guest/ overlay, the suite and the lgpio
# version. With the same inputs a second run only prints the folder. In the folder:
# disk.img (raw ext4, the root), vmlinuz, initrd.img, id_ed25519 (root's ssh key).
# Needs root (mmdebstrap --mode=root), mmdebstrap, e2fsprogs, python3 -m pip (the sdist),
# and the Debian mirror this machine's apt uses (MIRROR overrides it).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SUITE=${SUITE:-trixie}
LGPIO=lgpio==0.2.2.0
CACHE=${BOARDCTL_TWIN_CACHE:-$HOME/.cache/boardctl-twin}

KEY=$( (cat "$0"; echo "$SUITE $LGPIO"
        cd "$HERE/guest" && find . -type f | LC_ALL=C sort | while read -r f; do
            stat -c '%n %a' "$f"; cat "$f"; done) | sha256sum | cut -c1-16)
OUT="$CACHE/$KEY"
if [ -f "$OUT/disk.img" ]; then
    echo "$OUT"
    exit 0
fi

# The Debian mirror of this machine's own apt sources (deb822 first, then one-line).
if [ -z "${MIRROR:-}" ]; then
    MIRROR=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -v security | head -1 || true)
    [ -n "$MIRROR" ] || MIRROR=$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
fi
[ -n "${MIRROR:-}" ] || { echo "build-image.sh: no Debian mirror in the apt sources; set MIRROR" >&2; exit 1; }

BUILD="$CACHE/build-$KEY"
rm -rf "$BUILD"
mkdir -p "$BUILD"
ssh-keygen -q -t ed25519 -N '' -C boardctl-twin -f "$BUILD/id_ed25519"
# lgpio is not in Debian: the host's pip fetches the sdist (its own proxy and CA apply).
python3 -m pip download --quiet --no-deps --no-binary=:all: -d "$BUILD" "$LGPIO"

PACKAGES=(systemd-sysv udev dbus kmod systemd-resolved
    linux-image-amd64 linux-headers-amd64 linux-source-6.12 initramfs-tools
    make gcc libc6-dev bc xz-utils
    openssh-server ca-certificates
    python3 python3-pip python3-venv python3-dev python3-setuptools swig
    gpiod python3-libgpiod
    usbutils e2fsprogs procps iproute2 less)
INCLUDE=$(IFS=,; echo "${PACKAGES[*]}")

START=$(date +%s)
mmdebstrap --mode=root --variant=apt --format=directory --include="$INCLUDE" \
    --customize-hook="sync-in $HERE/guest /" \
    --customize-hook='mkdir -p -m 700 "$1/root/.ssh"' \
    --customize-hook="copy-in $BUILD/id_ed25519.pub /root/.ssh/" \
    --customize-hook='mv "$1/root/.ssh/id_ed25519.pub" "$1/root/.ssh/authorized_keys"' \
    --customize-hook="copy-in $(ls "$BUILD"/lgpio-*.tar.gz) /usr/local/src/" \
    --customize-hook='chroot "$1" /usr/local/lib/twin/setup-in-chroot.sh' \
    --customize-hook='rm -f "$1/etc/resolv.conf"; ln -s ../run/systemd/resolve/stub-resolv.conf "$1/etc/resolv.conf"' \
    "$SUITE" "$BUILD/rootfs" \
    "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SUITE main"
KVER=$(ls "$BUILD/rootfs/lib/modules" | sort -V | tail -1)
cp "$BUILD/rootfs/boot/vmlinuz-$KVER" "$BUILD/vmlinuz"
cp "$BUILD/rootfs/boot/initrd.img-$KVER" "$BUILD/initrd.img"
mkfs.ext4 -q -L twinroot -d "$BUILD/rootfs" "$BUILD/disk.img" 4G
rm -rf "$BUILD/rootfs" "$BUILD"/lgpio-*.tar.gz
echo "image built in $(($(date +%s) - START)) s (kernel $KVER)" | tee "$BUILD/build.log" >&2
rm -rf "$OUT"
mv "$BUILD" "$OUT"
echo "$OUT"
