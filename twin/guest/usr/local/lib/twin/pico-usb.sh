#!/bin/sh
# The Pico on the Pi's USB: a configfs CDC ACM gadget on dummy_hcd (a USB host controller and
# device controller in one, in the kernel) with the Pico's USB id and strings (/etc/default/twin).
# The host side is what the Pi sees: /dev/ttyACM0 (cdc_acm); the gadget side is /dev/ttyGS0,
# bridged to the emulated Pico by pico-bridge.py. The gadget is made and plugged here, at boot,
# as a Pico on the Pi's USB enumerates while the Pi boots; from then on the host unplugs and
# plugs it as the emulated chip's USB port goes and comes back (gpio-agent.py's "usb 0|1",
# writing the UDC file). Shell built-ins where they will do (a program started costs a second
# or more under TCG on a busy host).
set -eu
. /etc/default/twin
G=/sys/kernel/config/usb_gadget/pico
modprobe dummy_hcd is_high_speed=0  # full speed, as a Pico
modprobe libcomposite
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
if [ ! -d $G ]; then
    mkdir $G
    cd $G
    mkdir -p strings/0x409 configs/c.1/strings/0x409 functions/acm.GS0
    echo "$TWIN_USB_VID" > idVendor
    echo "$TWIN_USB_PID" > idProduct
    echo 0x0100 > bcdDevice
    echo 0x0200 > bcdUSB
    echo 0xEF > bDeviceClass
    echo 0x02 > bDeviceSubClass
    echo 0x01 > bDeviceProtocol
    echo "$TWIN_USB_MANUFACTURER" > strings/0x409/manufacturer
    echo "$TWIN_USB_PRODUCT" > strings/0x409/product
    echo "$TWIN_USB_SERIAL" > strings/0x409/serialnumber
    echo CDC > configs/c.1/strings/0x409/configuration
    echo 250 > configs/c.1/MaxPower
    ln -s functions/acm.GS0 configs/c.1/
fi
for UDC in /sys/class/udc/*; do break; done
UDC=${UDC##*/}
echo "$UDC" > /run/twin-udc
read -r PLUGGED < $G/UDC || PLUGGED=""
[ -n "$PLUGGED" ] || echo "$UDC" > $G/UDC
echo "pico-usb: gadget $TWIN_USB_VID:$TWIN_USB_PID plugged in $UDC"
