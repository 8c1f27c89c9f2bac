// The USB host in front of the emulated Pico: it enumerates whatever CDC ACM device the
// firmware presents (MicroPython's builtin one, or the firmware's own on machine.USBDevice)
// the way a Linux host does, and moves the serial bytes.
//
// rp2040js 1.4.1 models the device-side USB controller; its own host (USBCDC) assumes a
// lot, so this one replaces it:
// - enumeration: SET_ADDRESS, the device descriptor (VID:PID, string indexes), the whole
//   configuration descriptor (the CDC data interface's bulk endpoints and packet size are
//   read from it, not assumed), the manufacturer/product/serial strings, SET_CONFIGURATION,
//   then SET_LINE_CODING (115200 8N1), GET_LINE_CODING (read back) and
//   SET_CONTROL_LINE_STATE (DTR|RTS) to the CDC communication interface;
// - re-enumeration: the device pulling its D+ pull-up off (TinyUSB's dcd_disconnect, as
//   MicroPython does when USBDevice.active() changes) is a disconnect; pulling it on again
//   is a new device: a bus reset and the whole enumeration again;
// - OUT data as a host controller sends it: each write is one transfer, cut into packets
//   of the endpoint's size, the last one short; no zero-length packet after a write that
//   is an exact multiple of the packet size (Linux's cdc-acm sends none); a packet goes
//   only when the device has armed its buffer (else the host would be NAKed), so the
//   device controls the pace and nothing is dropped;
// - IN data: every packet the device sends is taken at once (the port is always open);
// - a control transfer the device does not answer within 50 ms (a STALL, which rp2040js
//   does not report to the host) is given up, as a host would after the STALL;
// - a start-of-frame every 1 ms while the device is on the bus (rp2040js sends none in
//   device mode; MicroPython's builtin CDC waits 16 of them after DTR before it sends
//   what it printed while the port was closed). Reading SOF_RD clears the interrupt.

const SOF_RD = 0x48;
const SIE_CTRL = 0x4c;
const INTR_DEV_SOF = 1 << 17;
const SOF_PERIOD_NS = 1e6; // a full-speed frame
const PULLUP_EN = 1 << 16;
const CONTROL_TIMEOUT_NS = 50e6;
const DESC_DEVICE = 1;
const DESC_CONFIG = 2;
const DESC_STRING = 3;
const DESC_INTERFACE = 4;
const DESC_ENDPOINT = 5;
const CDC_COMM_CLASS = 2;
const CDC_DATA_CLASS = 10;
const LINE_CODING = [0x00, 0xc2, 0x01, 0x00, 0x00, 0x00, 0x08]; // 115200 baud, 1 stop bit, no parity, 8 bits

function setup(bmRequestType, bRequest, wValue, wIndex, wLength) {
  return Uint8Array.from([
    bmRequestType, bRequest, wValue & 0xff, wValue >> 8, wIndex & 0xff, wIndex >> 8, wLength & 0xff, wLength >> 8,
  ]);
}

function text(descriptor) {
  // A string descriptor (UTF-16LE after the two header bytes) as a JS string.
  let s = '';
  for (let i = 2; i + 1 < descriptor.length; i += 2) s += String.fromCharCode(descriptor[i] | (descriptor[i + 1] << 8));
  return s;
}

// The first CDC ACM function of a configuration descriptor: its communication interface,
// and its data interface's bulk endpoints.
export function parseConfiguration(bytes) {
  const found = { comm: -1, data: -1, epIn: -1, epOut: -1, inSize: 64, outSize: 64, interfaces: 0 };
  let current = null; // the interface the descriptors at hand belong to
  for (let i = 0; i + 1 < bytes.length && bytes[i] >= 2; i += bytes[i]) {
    const type = bytes[i + 1];
    if (type === DESC_CONFIG) found.interfaces = bytes[i + 4];
    if (type === DESC_INTERFACE) {
      current = { number: bytes[i + 2], cls: bytes[i + 5] };
      if (current.cls === CDC_COMM_CLASS && found.comm < 0) found.comm = current.number;
      if (current.cls === CDC_DATA_CLASS && found.data < 0) found.data = current.number;
    }
    if (type === DESC_ENDPOINT && current && current.cls === CDC_DATA_CLASS && current.number === found.data) {
      const address = bytes[i + 2];
      const size = bytes[i + 4] | (bytes[i + 5] << 8);
      if ((bytes[i + 3] & 3) !== 2) continue; // not bulk
      if (address & 0x80) [found.epIn, found.inSize] = [address & 0xf, size];
      else [found.epOut, found.outSize] = [address & 0xf, size];
    }
  }
  return found;
}

export class UsbHost {
  constructor(mcu, { onConnected, onDisconnected, onData } = {}) {
    this.mcu = mcu;
    this.usb = mcu.usbCtrl;
    this.onConnected = onConnected;
    this.onDisconnected = onDisconnected;
    this.onData = onData;
    this.connected = false; // enumerated, configured, DTR set: a port the host can use
    this.info = null;
    this.enumerations = 0;
    this.transfers = []; // OUT transfers (one per write) waiting, each {bytes, offset}
    this.armed = []; // OUT buffers the device has armed: [endpoint, size]
    this.inFlight = 0; // OUT packets handed over, not yet in the device's buffer
    this.control = null; // the control transfer under way
    this.controls = []; // and the ones after it
    this.pullup = false;
    this.early = [];
    const usb = this.usb;
    usb.onUSBEnabled = () => {}; // (the pull-up, not the controller, makes the device visible)
    usb.onResetReceived = () => this.enumerate();
    usb.onEndpointWrite = (endpoint, buffer) => this.deviceWrote(endpoint, buffer);
    usb.onEndpointRead = (endpoint, size) => this.deviceArmed(endpoint, size);
    const write = usb.writeUint32;
    usb.writeUint32 = (offset, value) => {
      write.call(usb, offset, value);
      if (offset === SIE_CTRL && !usb.hostMode) this.pullupChanged(!!(value & PULLUP_EN));
    };
    // rp2040js 1.4.1 starts a double-buffered IN endpoint's buffer 1 before buffer 0 when
    // both are armed at once (a transfer of two packets or more): its packets would reach
    // the host swapped. Put them back in order.
    const dpramUpdated = usb.DPRAMUpdated;
    usb.DPRAMUpdated = (offset, value) => {
      const endpoint = (offset - 0x80) >> 3;
      const alarm = offset >= 0x80 && offset < 0x100 && !(offset & 4) ? usb.endpointWriteAlarms[endpoint] : null;
      const before = alarm ? alarm.buffers.length : 0;
      dpramUpdated.call(usb, offset, value);
      if (alarm && alarm.buffers.length === before + 2) {
        const b = alarm.buffers;
        [b[before], b[before + 1]] = [b[before + 1], b[before]];
      }
    };
    const read = usb.readUint32;
    usb.readUint32 = (offset) => {
      if (offset === SOF_RD && !usb.hostMode) {
        usb.intRaw &= ~INTR_DEV_SOF;
        usb.checkInterrupts();
      }
      return read.call(usb, offset);
    };
    this.sof = mcu.clock.createAlarm(() => {
      if (!this.pullup) return;
      usb.sofFrameNumber = (usb.sofFrameNumber + 1) & 0x7ff;
      usb.intRaw |= INTR_DEV_SOF;
      usb.checkInterrupts();
      this.sof.schedule(SOF_PERIOD_NS);
    });
    const finishRead = usb.finishRead;
    usb.finishRead = (endpoint, buffer) => {
      finishRead.call(usb, endpoint, buffer);
      if (this.info && endpoint === this.info.epOut && this.inFlight > 0) this.inFlight -= 1;
      // The status stage is in the device's buffer: the next request may go.
      if (endpoint === 0 && this.control && this.control.stage === 'status-sent') this.finishControl();
    };
  }

  pullupChanged(on) {
    if (on === this.pullup) return;
    this.pullup = on;
    if (on) {
      this.usb.resetDevice(); // a new device on the bus: reset it, then enumerate
      this.sof.schedule(SOF_PERIOD_NS);
    } else {
      this.disconnect();
    }
  }

  disconnect() {
    const was = this.connected;
    this.connected = false;
    this.info = null;
    this.control = null;
    this.controls = [];
    this.armed = [];
    this.transfers = []; // the port is gone: what was queued for it too
    this.inFlight = 0;
    this.early = []; // IN data of the device, sent before the port was open
    if (was) this.onDisconnected?.();
  }

  // --- control transfers --------------------------------------------------------

  request(packet, { data = null, done = () => {} } = {}) {
    this.controls.push({ packet, data, done, received: [], length: packet[6] | (packet[7] << 8) });
  }

  enumerate() {
    this.disconnect();
    this.enumerations += 1;
    const found = { vid: 0, pid: 0, strings: {}, descriptors: {} };
    this.request(setup(0x00, 5, 1, 0, 0)); // SET_ADDRESS 1
    this.request(setup(0x80, 6, DESC_DEVICE << 8, 0, 18), {
      done: (d) => {
        found.descriptors.device = Array.from(d);
        found.vid = d[8] | (d[9] << 8);
        found.pid = d[10] | (d[11] << 8);
        found.stringIndexes = { manufacturer: d[14], product: d[15], serial: d[16] };
      },
    });
    this.request(setup(0x80, 6, DESC_CONFIG << 8, 0, 9), {
      done: (d) => {
        const total = d[2] | (d[3] << 8);
        this.controls.unshift(this.makeConfigRequest(total, found));
      },
    });
  }

  makeConfigRequest(total, found) {
    const packet = setup(0x80, 6, DESC_CONFIG << 8, 0, total);
    const done = (d) => {
      found.descriptors.configuration = Array.from(d);
      Object.assign(found, parseConfiguration(d));
      this.info = found; // (the port is usable once DTR is set, below)
      const next = [];
      for (const [name, index] of Object.entries(found.stringIndexes)) {
        if (!index) continue;
        next.push({
          packet: setup(0x80, 6, (DESC_STRING << 8) | index, 0x0409, 255),
          data: null,
          received: [],
          length: 255,
          done: (s) => (found.strings[name] = text(s)),
        });
      }
      this.controls.unshift(...next);
      this.request(setup(0x00, 9, 1, 0, 0)); // SET_CONFIGURATION 1
      if (found.comm >= 0) {
        this.request(setup(0x21, 0x20, 0, found.comm, 7), { data: Uint8Array.from(LINE_CODING) });
        this.request(setup(0xa1, 0x21, 0, found.comm, 7), { done: (d) => (found.lineCoding = Array.from(d)) });
        this.request(setup(0x21, 0x22, 3, found.comm, 0), {
          done: () => {
            if (found.epOut < 0 || found.epIn < 0) return; // no CDC data interface: no port
            this.connected = true;
            this.onConnected?.(found);
            // What the device sent before the port was open waited in the device (a host
            // reads the IN endpoint only once the port is open); rp2040js completes IN
            // transfers at once, so it waited here.
            for (const data of this.early.splice(0)) this.onData?.(data);
          },
        });
      }
    };
    return { packet, data: null, done, received: [], length: total };
  }

  startControl() {
    if (this.control) {
      if (this.nanos() - this.control.started < CONTROL_TIMEOUT_NS) return;
      this.control = null; // stalled: give it up
    }
    const next = this.controls.shift();
    if (!next) return;
    next.started = this.nanos();
    next.stage = next.packet[0] & 0x80 ? 'in' : next.data ? 'out' : 'status-in';
    this.control = next;
    this.usb.sendSetupPacket(next.packet);
  }

  finishControl() {
    const control = this.control;
    this.control = null;
    control.done(Uint8Array.from(control.received));
  }

  nanos() {
    return this.mcu.clock.nanos;
  }

  deviceWrote(endpoint, buffer) {
    if (endpoint === 0) {
      const control = this.control;
      if (!control) return;
      if (control.stage === 'in') {
        control.received.push(...buffer);
        if (buffer.length < 64 || control.received.length >= control.length) control.stage = 'status-out';
        if (control.stage === 'status-out' && control.statusArmed) this.sendStatus();
      } else if (control.stage === 'status-in' && buffer.length === 0) {
        this.finishControl();
      }
      return;
    }
    if (this.info && endpoint === this.info.epIn) {
      if (this.connected) this.onData?.(buffer);
      else this.early.push(buffer);
    }
  }

  deviceArmed(endpoint, size) {
    if (endpoint === 0) {
      const control = this.control;
      if (!control) return;
      if (control.stage === 'out') {
        this.usb.endpointReadDone(0, control.data);
        control.stage = 'status-in';
      } else if (control.stage === 'status-out') {
        this.sendStatus();
      } else {
        control.statusArmed = true; // armed early for the status stage
      }
      return;
    }
    this.armed.push([endpoint, size]);
    this.pump(); // a packet waiting goes at once
  }

  sendStatus() {
    this.control.stage = 'status-sent';
    this.usb.endpointReadDone(0, new Uint8Array(0));
  }

  // --- the serial bytes ---------------------------------------------------------

  write(bytes) {
    // One transfer: bytes the host wrote at once.
    if (this.connected && bytes.length) this.transfers.push({ bytes: Uint8Array.from(bytes), offset: 0 });
  }

  get pending() {
    // OUT bytes not yet in the device's buffer.
    let n = this.inFlight;
    for (const t of this.transfers) n += t.bytes.length - t.offset;
    return n;
  }

  pump() {
    this.startControl();
    if (!this.connected || !this.info) return;
    const { epOut, outSize } = this.info;
    while (this.transfers.length && this.armed.length) {
      const [endpoint, size] = this.armed.shift();
      if (endpoint !== epOut) continue;
      const transfer = this.transfers[0];
      const n = Math.min(outSize, size, transfer.bytes.length - transfer.offset);
      const packet = transfer.bytes.subarray(transfer.offset, transfer.offset + n);
      transfer.offset += n;
      if (transfer.offset >= transfer.bytes.length) this.transfers.shift();
      this.inFlight += 1;
      // Full speed: 12 Mbit/s, about 0.7 us a byte with the bit stuffing and the packet's
      // own bytes, after the controller's 10 us turnaround.
      this.usb.endpointReadDone(endpoint, packet, 10 + Math.ceil(0.7 * n));
    }
  }
}
