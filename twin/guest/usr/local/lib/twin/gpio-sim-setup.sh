#!/bin/sh
# Make one simulated GPIO chip that looks like the Pi's header chip (/etc/default/twin).
# It is /dev/gpiochip0: QEMU's q35 machine has no other GPIO chip. Shell built-ins where
# they will do: each program started costs a second or more under TCG on a busy host.
set -eu
. /etc/default/twin
modprobe gpio-sim
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
D=/sys/kernel/config/gpio-sim/pi
if [ ! -d $D ]; then
    lines="" i=0
    while [ $i -le 27 ]; do lines="$lines $D/bank0/line$i"; i=$((i + 1)); done
    # shellcheck disable=SC2086
    mkdir -p $D/bank0 $lines
    echo "$TWIN_GPIO_LABEL" > $D/bank0/label
    echo "$TWIN_GPIO_LINES" > $D/bank0/num_lines
    i=0
    while [ $i -le 27 ]; do echo GPIO$i > $D/bank0/line$i/name; i=$((i + 1)); done
    echo 1 > $D/live
fi
read -r CHIP < $D/bank0/chip_name
read -r DEV < $D/dev_name
ln -sfn /sys/devices/platform/$DEV/$CHIP /run/twin-gpio
# Only this chip's node, once udev has applied its rules (group gpio): not the whole
# coldplug, which under TCG takes a minute (udevadm settle did).
udevadm wait --timeout=300 /dev/$CHIP
echo "gpio-sim: /dev/$CHIP, label $TWIN_GPIO_LABEL, lines in /run/twin-gpio"
