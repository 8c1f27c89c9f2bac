#!/bin/sh
# Make one simulated GPIO chip that looks like the Pi's header chip (/etc/default/twin).
# It is /dev/gpiochip0: QEMU's q35 machine has no other GPIO chip.
set -eu
. /etc/default/twin
modprobe gpio-sim
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
D=/sys/kernel/config/gpio-sim/pi
if [ ! -d $D ]; then
    mkdir $D $D/bank0
    echo "$TWIN_GPIO_LABEL" > $D/bank0/label
    echo "$TWIN_GPIO_LINES" > $D/bank0/num_lines
    for i in $(seq 0 27); do mkdir $D/bank0/line$i; echo GPIO$i > $D/bank0/line$i/name; done
    echo 1 > $D/live
fi
CHIP=$(cat $D/bank0/chip_name)
DEV=$(cat $D/dev_name)
ln -sfn /sys/devices/platform/$DEV/$CHIP /run/twin-gpio
udevadm settle
echo "gpio-sim: /dev/$CHIP, label $TWIN_GPIO_LABEL, lines in /run/twin-gpio"
