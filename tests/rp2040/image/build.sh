#!/bin/sh
# Rebuild micropython-v1.28.0-RPI_PICO.bin (beside this script) from source, offline, and
# compare it with the carried image. Reproduces it byte for byte (about a minute on 2 cores).
#
# The source is a trimmed tarball of micropython v1.28.0 with the submodules the rp2 port
# needs: pico-sdk 2.2.0 (a1438df), tinyusb aa0fc2e, mbedtls v3.6.2, micropython-lib 8380c7b
# (micropython-v1.28.0-rp2-vendored.tar.xz, 4.2 MB, sha256 below; not carried in this
# repository, see ../README.md for where it comes from).
# Needs (Debian): gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
#                 cmake build-essential python3
#
# usage: build.sh TARBALL [WORKDIR]   -> WORKDIR/micropython/ports/rp2/build-RPI_PICO/firmware.bin
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TARBALL=${1:?usage: build.sh TARBALL [WORKDIR]}
TARBALL_SHA256=70551c9d5ce0dc054e90941ecbbe6199adb80e229affe2ab460424595b0b9fac
echo "$TARBALL_SHA256  $TARBALL" | sha256sum -c -
W=${2:-$(mktemp -d)}
mkdir -p "$W"
tar -xJf "$TARBALL" -C "$W"
cd "$W/micropython"
make -C mpy-cross -j2
# PICO_NO_PICOTOOL: pico-sdk 2.x would otherwise git-clone picotool to make a UF2;
# the emulator loads the .bin.
cmake -S ports/rp2 -B ports/rp2/build-RPI_PICO -DPICO_BUILD_DOCS=0 -DMICROPY_BOARD=RPI_PICO \
      -DMICROPY_BOARD_DIR="$PWD/ports/rp2/boards/RPI_PICO" -DPICO_NO_PICOTOOL=1
make -C ports/rp2 BOARD=RPI_PICO -j2
BUILT=$PWD/ports/rp2/build-RPI_PICO/firmware.bin
sha256sum "$BUILT"
cmp "$BUILT" "$HERE/micropython-v1.28.0-RPI_PICO.bin" && echo "identical to the carried image"
