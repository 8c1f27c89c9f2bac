#!/bin/bash
# Boot the twin under QEMU, in the background: twin/boot.sh IMAGE_DIR RUN_DIR
#
# IMAGE_DIR is twin/build-image.sh's folder; RUN_DIR holds what this VM writes: root.qcow2
# (a copy-on-write layer over the image's disk.img), state.img (its own ext4 file system,
# mounted at /var/lib/boardctl: the score journal's state directory), the serial console's
# log, qemu.pid and the host's sockets (gpio.sock: the GPIO lines and the Pico's USB plug;
# pico.sock: the bytes of the Pico's USB port; qmp.sock). Both disks
# are kept between boots of the same RUN_DIR: boot again after a power cut to see what the
# guest kept. ssh: 127.0.0.1:$SSH_PORT (root, IMAGE_DIR/id_ed25519); the guest has no
# other network (QEMU's user network with restrict=on: no route out).
# env: SSH_PORT (2222) MEM (512 MB, a Zero 2 W's) SMP (2) ACCEL (tcg; kvm where a real VMX/SVM KVM is)
#      CACHE (none: a write the guest has not flushed is lost when QEMU is killed)
#      BROKER_PORT (none): the guest's 10.0.2.100:1883 reaches the host's 127.0.0.1:BROKER_PORT,
#      each connection through its own socat (QEMU's guestfwd): a linked game's MQTT broker
set -euo pipefail
IMAGE=${1:?image folder (twin/build-image.sh)}
RUN=${2:?run folder}
SSH_PORT=${SSH_PORT:-2222}
ACCEL=${ACCEL:-tcg}
if [ "$ACCEL" = kvm ]; then CPU=host; else CPU=max; fi
mkdir -p "$RUN"
if [ -f "$RUN/qemu.pid" ] && kill -0 "$(cat "$RUN/qemu.pid")" 2>/dev/null; then
    echo "boot.sh: the twin of $RUN already runs (pid $(cat "$RUN/qemu.pid"))" >&2
    exit 1
fi
[ -f "$RUN/root.qcow2" ] || qemu-img create -q -f qcow2 -F raw -b "$IMAGE/disk.img" "$RUN/root.qcow2"
[ -f "$RUN/state.img" ] || mkfs.ext4 -q -L boardstate "$RUN/state.img" 256M
rm -f "$RUN"/*.sock "$RUN/console.log"
NETDEV="user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$SSH_PORT-:22"
[ -z "${BROKER_PORT:-}" ] \
    || NETDEV="$NETDEV,guestfwd=tcp:10.0.2.100:1883-cmd:socat - TCP:127.0.0.1:$BROKER_PORT"
exec qemu-system-x86_64 -name boardctl-twin \
    -machine "q35,accel=$ACCEL" -cpu "$CPU" -smp "${SMP:-2}" -m "${MEM:-512}" \
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 quiet mitigations=off" \
    -nodefaults -vga none \
    -drive "file=$RUN/root.qcow2,if=virtio,format=qcow2,cache=${CACHE:-none},aio=threads" \
    -drive "file=$RUN/state.img,if=virtio,format=raw,cache=${CACHE:-none},aio=threads" \
    -netdev "$NETDEV" \
    -device virtio-net-pci,netdev=n0 \
    -device virtio-serial-pci \
    -chardev "socket,id=gpio,path=$RUN/gpio.sock,server=on,wait=off" \
    -device virtserialport,chardev=gpio,name=twin.gpio \
    -chardev "socket,id=pico,path=$RUN/pico.sock,server=on,wait=off" \
    -device virtserialport,chardev=pico,name=twin.pico \
    -qmp "unix:$RUN/qmp.sock,server=on,wait=off" \
    -display none -serial "file:$RUN/console.log" -daemonize -pidfile "$RUN/qemu.pid"
