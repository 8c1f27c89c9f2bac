#!/bin/sh
# Runs inside the image's chroot while twin/build-image.sh builds it.
set -eux
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
KVER=$(ls /lib/modules | sort -V | tail -1)

# 1. gpio-sim.ko, built against the image's own kernel headers with its own gcc.
/usr/local/src/gpio-sim/build.sh "$KVER" > /var/log/twin-gpio-sim-build.log 2>&1 \
    || { cat /var/log/twin-gpio-sim-build.log; exit 1; }
modinfo "/lib/modules/$KVER/updates/gpio-sim.ko" | grep -E '^(vermagic|depends)'
apt-get purge -y linux-source-6.12 > /dev/null

# 2. python3-lgpio: Raspberry Pi OS ships it from its own archive; Debian trixie has no
#    lgpio. Build PyPI's sdist (fetched on the host: no network here; PYPI=1 links the
#    bundled C library in) and wrap it as a package of that name, so that install.sh's
#    `apt-get install python3-lgpio` finds it installed, as on the Pi.
SDIST=$(ls /usr/local/src/lgpio-*.tar.gz)
VERSION=$(basename "$SDIST" .tar.gz | sed 's/^lgpio-//')
PKG=/tmp/python3-lgpio
rm -rf "$PKG"
env -u PIP_FIND_LINKS -u PIP_CERT -u PIP_INDEX_URL PYPI=1 pip3 install --quiet --break-system-packages --no-cache-dir --no-index --no-build-isolation --no-deps \
    --target "$PKG/usr/lib/python3/dist-packages" "$SDIST"
rm -rf "$PKG/usr/lib/python3/dist-packages/bin"
mkdir -p "$PKG/DEBIAN"
cat > "$PKG/DEBIAN/control" <<CONTROL
Package: python3-lgpio
Version: $VERSION-twin1
Architecture: amd64
Maintainer: boardctl twin <root@localhost>
Depends: python3
Description: lgpio Python module (PyPI sdist built for the boardctl twin)
CONTROL
dpkg-deb --root-owner-group --build "$PKG" /tmp/python3-lgpio.deb > /dev/null
dpkg -i /tmp/python3-lgpio.deb > /dev/null
rm -rf "$PKG" /tmp/python3-lgpio.deb "$SDIST"
python3 -c 'import lgpio, gpiod; print("lgpio", lgpio.LGPIO_PY_VERSION, "gpiod", gpiod.__version__)'

# 3. The system: a Pi's host name and user, the state partition, no package sources.
echo raspberrypi > /etc/hostname
printf '127.0.0.1 localhost\n127.0.1.1 raspberrypi\n' > /etc/hosts
mkdir -p /var/lib/boardctl
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n/dev/vdb /var/lib/boardctl ext4 rw,nosuid,nodev 0 2\n' > /etc/fstab
groupadd -f -r gpio
id pi > /dev/null 2>&1 || useradd -m -s /bin/bash -G gpio,dialout,plugdev pi
passwd -d root
systemctl enable systemd-networkd twin-board twin-gpio-sim twin-gpio-agent twin-pico-usb \
    twin-pico-bridge
# Off, to shorten the boot under TCG: no network to wait for or names to resolve (Raspberry
# Pi OS has no systemd-resolved either), no timers a test rig needs, and e2scrub_reap (up
# to 40 s of a loaded boot; the twin has no LVM to scrub).
systemctl mask systemd-networkd-wait-online.service apt-daily.timer apt-daily-upgrade.timer \
    e2scrub_all.timer e2scrub_reap.service fstrim.timer man-db.timer systemd-resolved.service
# The VM has no network: apt knows no sources (apt-get update succeeds with nothing to do).
rm -f /etc/apt/sources.list /etc/apt/sources.list.d/*
apt-get clean

# 4. A shorter boot under TCG. The modules the twin's units load (the Pico's USB gadget and
#    its host side) uncompressed: kmod need not unpack them at each boot. An initramfs with
#    only what mounts the root (virtio's PCI transport is built in): no coldplug of every
#    driver there and again after the switch to the root.
for module in dummy_hcd udc-core libcomposite usb_f_acm u_serial cdc_acm; do
    modinfo -k "$KVER" -n "$module"
done | grep '\.xz$' | xargs xz -d
depmod -a "$KVER"
echo 'MODULES=list' > /etc/initramfs-tools/conf.d/twin
printf '%s\n' virtio_blk ext4 crc32c_generic crc32c_intel >> /etc/initramfs-tools/modules
update-initramfs -u -k "$KVER"
# systemd's first-boot jobs (ldconfig.service, systemd-update-done.service) have nothing
# to do in an image made whole here: mark /etc and /var up to date with /usr.
touch /etc/.updated /var/.updated
