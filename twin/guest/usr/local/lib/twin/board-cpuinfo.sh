#!/bin/sh
# /proc/cpuinfo as a Pi's kernel writes it: the VM's own, plus the Hardware, Revision and
# Model lines gpiozero reads to know the board (/etc/default/twin). Bound over /proc/cpuinfo
# for everyone, and again inside boardctl.service's own /proc (boardctl.service.d/twin-board.conf).
set -eu
. /etc/default/twin
mkdir -p /run/twin-board
{ cat /proc/cpuinfo
  printf 'Hardware\t: BCM2835\nRevision\t: %s\nSerial\t\t: 00000000e6614103\nModel\t\t: %s\n' \
      "$TWIN_BOARD_REVISION" "$TWIN_BOARD_MODEL"
} > /run/twin-board/cpuinfo
mountpoint -q /proc/cpuinfo || mount --bind -o ro /run/twin-board/cpuinfo /proc/cpuinfo
