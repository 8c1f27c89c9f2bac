#!/bin/sh
# Build and install gpio-sim.ko for kernel $1 (default: the running one), from the
# kernel's own source (linux-source-*.tar.xz of the same Debian version) and headers.
# Debian's kernel has neither CONFIG_GPIO_SIM nor CONFIG_IRQ_SIM: both go in one module.
set -eu
KVER=${1:-$(uname -r)}
cd "$(dirname "$0")"
if [ ! -f gpio-sim-drv.c ] || [ ! -f irq_sim.c ]; then
    TARBALL=$(ls /usr/src/linux-source-*.tar.xz | head -1)
    rm -rf /tmp/ksrc && mkdir /tmp/ksrc
    tar -xJf "$TARBALL" -C /tmp/ksrc --wildcards '*/drivers/gpio/gpio-sim.c' '*/kernel/irq/irq_sim.c'
    cp /tmp/ksrc/*/drivers/gpio/gpio-sim.c gpio-sim-drv.c
    cp /tmp/ksrc/*/kernel/irq/irq_sim.c irq_sim.c
    rm -rf /tmp/ksrc
fi
# irq_to_desc() is not exported to modules: call the exported generic_handle_irq(), which
# runs the same handler (handle_simple_irq, set by irq_sim_domain_map). Fails loudly when
# a newer source no longer has that line.
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' irq_sim.c
grep -q 'generic_handle_irq(irqnum)' irq_sim.c
make -C "/lib/modules/$KVER/build" M="$PWD" modules
install -D -m 0644 gpio-sim.ko "/lib/modules/$KVER/updates/gpio-sim.ko"
depmod -a "$KVER"
echo "installed /lib/modules/$KVER/updates/gpio-sim.ko"
