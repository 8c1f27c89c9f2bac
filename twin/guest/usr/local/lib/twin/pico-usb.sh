#!/bin/sh
# The Pico on the Pi's USB: a configfs CDC ACM gadget on dummy_hcd (a USB host controller and
# device controller in one, in the kernel) with the Pico's USB id and strings (/etc/default/twin).
# The host side is what the Pi sees: /dev/ttyACM0 (cdc_acm); the gadget side is /dev/ttyGS0,
# bridged to the emulated Pico by pico-bridge.py. The gadget is made and plugged here, at boot,
# as a Pico on the Pi's USB enumerates while the Pi boots; from then on the host unplugs and
# plugs it as the emulated chip's USB port goes and comes back (gpio-agent.py's "usb 0|1",
# writing the UDC file).
set -eu
. /etc/default/twin
G=/sys/kernel/config/usb_gadget/pico
modprobe dummy_hcd is_high_speed=0  # full speed, as a Pico
modprobe libcomposite
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
if [ ! -d $G ]; then
    mkdir $G
    cd $G
    echo "$TWIN_USB_VID" > idVendor
    echo "$TWIN_USB_PID" > idProduct
    echo 0x0100 > bcdDevice
    echo 0x0200 > bcdUSB
    echo 0xEF > bDeviceClass
    echo 0x02 > bDeviceSubClass
    echo 0x01 > bDeviceProtocol
    mkdir strings/0x409
    echo "$TWIN_USB_MANUFACTURER" > strings/0x409/manufacturer
    echo "$TWIN_USB_PRODUCT" > strings/0x409/product
    echo "$TWIN_USB_SERIAL" > strings/0x409/serialnumber
    mkdir -p configs/c.1/strings/0x409
    echo CDC > configs/c.1/strings/0x409/configuration
    echo 250 > configs/c.1/MaxPower
    mkdir functions/acm.GS0
    ln -s functions/acm.GS0 configs/c.1/
fi
ls /sys/class/udc | head -1 > /run/twin-udc
[ -n "$(cat $G/UDC)" ] || cat /run/twin-udc > $G/UDC
echo "pico-usb: gadget $(cat $G/idVendor):$(cat $G/idProduct) plugged in $(cat /run/twin-udc)"
