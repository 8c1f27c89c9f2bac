// An emulated Raspberry Pi Pico for the firmware tests: rp2040js running the stock
// MicroPython RP2040 image (image/), with the firmware's files on littlefs in flash.
//
// - the link: USB CDC (a host-side CDC driver) or UART0 at 1 Mbaud: a byte comes off
//   the wire every 10 us of emulated time whether or not the 32-byte RX FIFO has room;
//   one arriving at a full FIFO is lost and flags an overrun, as on the PL011;
// - PIO stepped in emulated time (its clock divider and delays), DMA paced by its DREQs;
// - the LED pin: its edges, in emulated nanoseconds, decoded as WS2812 bits into frames;
// - the buzzer pin (PWM): its edges decoded into tones (runs of equal periods);
// - the watchdog: a real chip reset (rp2040js only calls a hook), keeping flash, the
//   reset reason and the scratch registers, with emulated time carried on;
// - BOOTSEL held or released, and a hang of the main loop (for the watchdog);
// - flash writes: the boot ROM's flash_range_erase and flash_range_program act on the
//   flash image (rp2040js's SSI talks to no flash chip), so littlefs writes (mpremote cp)
//   persist across resets.
//
// rp2040js 1.4.1 is pinned exactly (package.json): the workarounds below patch its
// internals. What it does not model is listed in tests/rp2040/README.md.
import { readFileSync } from 'node:fs';
import { ConsoleLogger, LogLevel, RP2040 } from 'rp2040js';
import { bootromB1 } from './image/bootrom-b1.mjs';
import { UsbHost } from './usbhost.mjs';

export const FS_OFFSET = 0xa0000; // RPI_PICO: 2 MiB flash, the last 1408 KiB are littlefs
const STATUS_LED_PIN = 25;
const UART_BYTE_NS = 10_000; // 1 Mbaud, 10 bits per byte
const UART_OE = 1 << 11; // UARTDR: overrun error (with the first byte read after it)
const UART_OEINTR = 1 << 10; // UARTRIS: overrun interrupt
const HANG_ADDRESS = 0x20041ff0; // top of SCRATCH_Y: two bytes for a `b .` loop

export class WS2812Decoder {
  // Pin edges (ns) -> frames of bytes. A high time over `threshold` is a 1 bit; a low
  // time over `latch` ends the frame (the WS2812 latches after 50 us low).
  constructor(threshold = 625, latch = 50_000) {
    this.threshold = threshold;
    this.latch = latch;
    this.frames = [];
    this.cur = null;
    this.rise = null;
    this.lastRise = null;
    this.lastFall = null;
  }

  edge(t, high) {
    if (high) {
      if (this.lastFall !== null && t - this.lastFall > this.latch) this.flush();
      if (this.cur && this.lastRise !== null) {
        const period = t - this.lastRise;
        this.cur.pmin = Math.min(this.cur.pmin, period);
        this.cur.pmax = Math.max(this.cur.pmax, period);
      }
      this.rise = t;
      this.lastRise = t;
    } else if (this.rise !== null) {
      const high = t - this.rise;
      if (!this.cur) this.cur = { start: this.rise, bits: [], t0h: [1e9, 0], t1h: [1e9, 0], pmin: 1e9, pmax: 0 };
      const bit = high > this.threshold ? 1 : 0;
      const range = bit ? this.cur.t1h : this.cur.t0h;
      range[0] = Math.min(range[0], high);
      range[1] = Math.max(range[1], high);
      this.cur.bits.push(bit);
      this.cur.end = t;
      this.lastFall = t;
      this.rise = null;
    }
  }

  poll(now) {
    if (this.cur && this.lastFall !== null && now - this.lastFall > this.latch) this.flush();
  }

  flush() {
    if (!this.cur) return;
    const { bits } = this.cur;
    const bytes = new Uint8Array(bits.length >> 3);
    for (let i = 0; i < bytes.length; i++) {
      let b = 0;
      for (let j = 0; j < 8; j++) b = (b << 1) | bits[8 * i + j];
      bytes[i] = b;
    }
    const { start, end, t0h, t1h, pmin, pmax } = this.cur;
    this.frames.push({ start, end, nbits: bits.length, bytes, t0h, t1h, period: [pmin, pmax] });
    this.cur = null;
    this.lastRise = null;
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export class ToneDecoder {
  // PWM pin edges (ns) -> tones: runs of cycles whose periods agree within `tolerance`.
  // A tone ends when the period changes or no rising edge comes for over twice its
  // period (the duty went to 0: a rest, or the end of the figure).
  constructor(tolerance = 0.01) {
    this.tolerance = tolerance;
    this.tones = [];
    this.cur = null;
    this.lastRise = null;
    this.lastFall = null;
    this.level = 0;
  }

  edge(t, high) {
    this.level = high ? 1 : 0;
    if (!high) {
      this.lastFall = t;
      return;
    }
    const rise = this.lastRise;
    this.lastRise = t;
    if (rise === null || this.lastFall === null || this.lastFall < rise) return;
    const period = t - rise; // one whole cycle: rise, fall, rise
    if (this.cur && Math.abs(period - this.cur.first) > this.tolerance * this.cur.first) this.flush();
    if (!this.cur) this.cur = { start: rise, first: period, periods: 0, highs: [], cycles: 0 };
    this.cur.periods += period;
    this.cur.highs.push(this.lastFall - rise);
    this.cur.cycles += 1;
    this.cur.end = t;
  }

  poll(now) {
    const cur = this.cur;
    if (cur && now - this.lastRise > 2 * cur.first) {
      // The last rise began one more cycle (its fall came, the next rise did not: the
      // duty went to 0 at that wrap).
      if (this.lastFall > this.lastRise) {
        cur.highs.push(this.lastFall - this.lastRise);
        cur.periods += cur.periods / cur.cycles;
        cur.cycles += 1;
        cur.end = this.lastRise + cur.first;
      }
      this.flush();
      this.lastRise = null;
    } else if (!cur && this.lastRise !== null && now - this.lastRise > 50e6) {
      this.lastRise = null; // a lone pulse long ago: no cycle to pair it with
    }
  }

  flush() {
    const cur = this.cur;
    if (!cur) return;
    this.tones.push({
      start: cur.start,
      end: cur.end,
      period: cur.periods / cur.cycles,
      high: median(cur.highs), // a cycle whose fall a busy host's emulator shifted moves it not
      cycles: cur.cycles,
    });
    this.cur = null;
  }
}

// rp2040js's PL011 keeps TXINTR asserted for ever, so machine.UART() hangs in an
// interrupt storm. A real PL011 raises it on a FIFO level transition; TX is instant
// here, so raise it once per byte written to the data register.
// The boot ROM's flash functions (its function table: 'RE' flash_range_erase, 'RP'
// flash_range_program, B1 addresses), replaced by a BKPT the rig answers and a return.
// rp2040js's SSI answers every status read and talks to no flash chip, so the ROM's own
// code would leave the flash as it was; the other ROM flash calls (connect, exit XIP,
// flush cache, enter XIP) run as they are and do nothing harmful.
const ROM_FLASH_ERASE = 0x237c;
const ROM_FLASH_PROGRAM = 0x23c4;
const BKPT_ERASE = 0xe1;
const BKPT_PROGRAM = 0xe2;
const FLASH_SIZE = 2 * 1024 * 1024; // RPI_PICO

function patchFlashWrites(mcu) {
  const rom = new DataView(mcu.bootrom.buffer);
  const table = rom.getUint16(0x14, true);
  const found = {};
  for (let at = table; rom.getUint16(at, true); at += 4) {
    found[rom.getUint16(at, true)] = rom.getUint16(at + 2, true) & ~1;
  }
  const code = (a, b) => a.charCodeAt(0) | (b.charCodeAt(0) << 8);
  if (found[code('R', 'E')] !== ROM_FLASH_ERASE || found[code('R', 'P')] !== ROM_FLASH_PROGRAM) {
    throw new Error('not the B1 boot ROM: its flash functions are elsewhere');
  }
  for (const [at, bkpt] of [[ROM_FLASH_ERASE, BKPT_ERASE], [ROM_FLASH_PROGRAM, BKPT_PROGRAM]]) {
    rom.setUint16(at, 0xbe00 | bkpt, true); // BKPT #bkpt
    rom.setUint16(at + 2, 0x4770, true); // BX LR
  }
  mcu.onBreak = (imm) => {
    const r = mcu.core.registers;
    const offset = r[0] >>> 0;
    if (imm === BKPT_ERASE) {
      // (offset, count, block size, block command): count is a multiple of 4 KiB
      const end = Math.min(FLASH_SIZE, offset + (r[1] >>> 0));
      mcu.flash.fill(0xff, offset, end);
    } else if (imm === BKPT_PROGRAM) {
      // (offset, data, count): NOR flash programming only clears bits
      const data = r[1] >>> 0;
      const count = Math.min(r[2] >>> 0, FLASH_SIZE - offset);
      for (let i = 0; i < count; i++) mcu.flash[offset + i] &= mcu.readUint8(data + i);
    }
  };
}

function patchUART(uart) {
  const proto = Object.getPrototypeOf(uart);
  if (proto.boardctlPatched) return;
  proto.boardctlPatched = true;
  const TXINTR = 1 << 5;
  proto.checkInterrupts = function () {
    this.rp2040.setInterrupt(this.irq, !!(this.interruptStatus & this.interruptMask));
  };
  const write = proto.writeUint32;
  proto.writeUint32 = function (offset, value) {
    write.call(this, offset, value);
    if (offset === 0 /* UARTDR */) {
      this.interruptStatus |= TXINTR;
      this.checkInterrupts();
    }
  };
}

// rp2040js runs PIO in setTimeout batches of 1000 steps, ignoring the clock divider and
// the delay cycles: unrelated to emulated time. Here every state machine steps on its own
// clock alarm instead (as the DMA and the timers do): one instruction, then the next one
// (1 + its delay) x CLKDIV system cycles later; pin edges get the emulated time of the
// instruction that made them. A machine stalled on its FIFOs (an autopull `out` or a
// `pull` with the TX FIFO empty, a push with the RX FIFO full) sleeps until the CPU or
// the DMA moves a word through that FIFO; one waiting on a pin or an IRQ looks every
// PIO cycle.
const PIO_CTRL = 0x000;
const FIFO_WAITS = new Set([2, 3, 5]); // rp2040js WaitType: rxFIFO, txFIFO, Out

function pioCycleNs(sm) {
  const div = (sm.clockDivInt || 65536) + sm.clockDivFrac / 256;
  return (div * 1e9) / sm.rp2040.clkSys;
}

function clockPIO(mcu) {
  const wake = (sm, cycles) => {
    if (sm.enabled && !sm.alarm.scheduled) sm.alarm.schedule(cycles * pioCycleNs(sm));
  };
  const step = (sm) => {
    sm.alarm.scheduled = false; // (rp2040js's clock leaves it set on a fired alarm)
    if (!sm.enabled) return; // (enabling it again wakes it: CTRL below)
    const before = sm.cycles;
    sm.step();
    sm.pio.checkChangedPins();
    if (sm.waiting) {
      if (FIFO_WAITS.has(sm.waitType)) return; // asleep until its FIFO moves
      sm.alarm.schedule(pioCycleNs(sm));
      return;
    }
    sm.alarm.schedule(Math.max(1, sm.cycles - before) * pioCycleNs(sm));
  };
  for (const pio of mcu.pio) {
    for (const sm of pio.machines) {
      sm.alarm = mcu.clock.createAlarm(() => step(sm));
      // A word through a FIFO may end a stall: the stalled instruction completes now,
      // the next one comes after its delay.
      for (const name of ['writeFIFO', 'readFIFO']) {
        const original = sm[name];
        sm[name] = function (...args) {
          const stalled = this.waiting;
          const result = original.apply(this, args);
          if (stalled && !this.waiting) {
            this.pio.checkChangedPins();
            wake(this, 1 + Math.max(0, this.waitDelay));
          }
          return result;
        };
      }
    }
    pio.run = function () {
      for (const sm of this.machines) wake(sm, 1);
    };
    const write = pio.writeUint32;
    pio.writeUint32 = function (offset, value) {
      write.call(this, offset, value);
      if (offset === PIO_CTRL) this.run(); // newly enabled (or restarted) machines
    };
  }
}

export class Pico {
  constructor({ bin, fs, ledPin = 0, bootsel = false, tonePin = -1 }) {
    this.binImage = readFileSync(bin);
    this.fsImage = fs ? readFileSync(fs) : null;
    this.ledPin = ledPin;
    this.bootsel = bootsel;
    this.cdcOut = []; // bytes from the device over USB CDC
    this.uartOut = []; // bytes from the device on UART0 TX
    this.usbEvents = []; // the host's view of the USB port: connected (descriptors), disconnected
    this.uartPending = []; // bytes on their way to UART0 RX, one per 10 us on the wire
    this.uartHead = 0; // (the next of them)
    this.uartOverruns = []; // emulated times of the bytes lost at a full RX FIFO
    this.uartDropped = 0; // bytes that reached a UART not enabled yet (during a boot)
    this.ws = new WS2812Decoder();
    this.tonePin = tonePin;
    this.tone = new ToneDecoder();
    this.resets = []; // emulated times of the watchdog resets
    this.statusLed = []; // [t_ns, level] of every change of GP25
    this.flash = null;
    this.clock = null;
    this.timeBase = 0;
    this.boot();
  }

  boot() {
    // A fresh chip at every reset; emulated time goes on from timeBase.
    this.timeBase += this.clock ? this.clock.nanos : 0;
    const mcu = new RP2040();
    const clock = mcu.clock;
    const base = this.timeBase;
    this.clock = clock;
    mcu.logger = new ConsoleLogger(LogLevel.Error);
    mcu.loadBootrom(bootromB1);
    patchFlashWrites(mcu);
    if (this.flash) {
      mcu.flash.set(this.flash);
    } else {
      mcu.flash.set(this.binImage, 0);
      if (this.fsImage) mcu.flash.set(this.fsImage, FS_OFFSET);
    }
    this.flash = mcu.flash; // rp2040js's reset() would fill flash with 0xff: keep ours
    // BOOTSEL pulls QSPI_SS low. rp2040js resets the pad with its input disabled (reads
    // as pressed); enable it and drive it.
    this.qspiSS = mcu.qspi[1];
    this.qspiSS.padValue |= 0x40;
    this.qspiSS.setInputValue(!this.bootsel);
    mcu.gpio[this.ledPin].addListener((state) => this.ws.edge(base + clock.nanos, state === 1));
    if (this.tonePin >= 0) {
      this.tone.flush(); // a reset silences the PWM
      this.tone.lastRise = null;
      mcu.gpio[this.tonePin].addListener((state) => this.tone.edge(base + clock.nanos, state === 1));
    }
    mcu.gpio[STATUS_LED_PIN].addListener((state) => this.statusLed.push([base + clock.nanos, state === 1 ? 1 : 0]));
    const wd = mcu.findPeripheral(0x40058000);
    if (this.carry) {
      wd.reason = this.carry.reason;
      wd.scratchData.set(this.carry.scratch);
    }
    wd.onWatchdogTrigger = () => {
      // After a timeout rp2040js's Timer32 alarm reschedules 0 ns ahead for ever; the
      // chip is being reset anyway: stop it.
      wd.alarm.enable = false;
      wd.timer.enable = false;
      this.resetRequested = true;
      this.carry = { reason: wd.reason, scratch: Uint32Array.from(wd.scratchData) };
    };
    // The USB host (usbhost.mjs): enumerates the device again whenever it reconnects. A
    // reset drops the USB connection and what was in flight.
    if (this.cdcConnected) this.usbEvents.push({ event: 'usb-disconnected', t_ns: this.nanos });
    this.cdcConnected = false;
    this.usbHost = new UsbHost(mcu, {
      onConnected: (info) => {
        this.cdcConnected = true;
        this.usbEvents.push({ event: 'usb-connected', t_ns: base + clock.nanos, ...info });
      },
      onDisconnected: () => {
        this.cdcConnected = false;
        this.usbEvents.push({ event: 'usb-disconnected', t_ns: base + clock.nanos });
      },
      onData: (data) => {
        for (const b of data) this.cdcOut.push(b);
      },
    });
    patchUART(mcu.uart[0]);
    mcu.uart[0].onByte = (b) => this.uartOut.push(b);
    clockPIO(mcu);
    // The UART wire: after a reset the byte in flight goes on arriving.
    this.uartAlarm = clock.createAlarm(() => this.uartArrive());
    this.uartWireEnd = 0;
    this.uartOverrun = false;
    mcu.core.PC = 0x10000000;
    this.mcu = mcu;
    this.resetRequested = false;
    this.uartKick();
  }

  get nanos() {
    return this.timeBase + this.clock.nanos;
  }

  setBootsel(pressed) {
    this.bootsel = pressed;
    this.qspiSS.setInputValue(!pressed);
  }

  hang() {
    // The main loop stops for good (as a bug would stop it): the core spins on a
    // `b .` instruction; interrupts still run, nothing feeds the watchdog.
    this.mcu.writeUint16(HANG_ADDRESS, 0xe7fe);
    this.mcu.core.PC = HANG_ADDRESS;
    this.mcu.core.waiting = false;
  }

  // Run the chip for `nanos` of emulated time.
  run(nanos) {
    const end = this.nanos + nanos;
    while (this.nanos < end) {
      const mcu = this.mcu;
      const clock = this.clock;
      const localEnd = end - this.timeBase;
      const cycleNanos = 1e9 / mcu.clkSys;
      for (let n = 0; n < 10000 && !this.resetRequested; ) {
        if (mcu.core.waiting) {
          const d = clock.nanosToNextAlarm;
          if (d <= 0) {
            clock.tick(cycleNanos);
            n += 1;
          } else {
            clock.tick(Math.min(d, localEnd - clock.nanos + 1));
            n += 100;
          }
        } else {
          clock.tick(mcu.core.executeInstruction() * cycleNanos);
          n++;
        }
      }
      if (this.resetRequested) {
        this.resets.push(this.nanos);
        this.boot();
        continue;
      }
      this.pump();
    }
    this.ws.poll(this.nanos);
    this.tone.poll(this.nanos);
  }

  // Bytes still on their way to the device.
  get pending() {
    return this.usbHost.pending + this.uartPending.length - this.uartHead;
  }

  pump() {
    // USB: the host's transfers, packet by packet as the device arms its buffer. Until the
    // device has enumerated there is no port to write to: what the host wrote meanwhile is lost.
    // (UART0 RX runs on its own alarm, at the wire's pace: uartKick.)
    this.usbHost.pump();
  }

  // UART0 RX at the wire: the next byte ends its 10 bits 10 us after the one before it
  // (or after now, if the line was idle), whatever the FIFO holds.
  uartKick() {
    if (this.uartHead >= this.uartPending.length || this.uartAlarm.scheduled) return;
    const now = this.clock.nanos;
    this.uartAlarm.schedule(Math.max(this.uartWireEnd, now) + UART_BYTE_NS - now);
  }

  uartArrive() {
    this.uartAlarm.scheduled = false; // (rp2040js's clock leaves it set on a fired alarm)
    const uart = this.mcu.uart[0];
    const byte = this.uartPending[this.uartHead++];
    if (this.uartHead > 65536) {
      this.uartPending = this.uartPending.slice(this.uartHead);
      this.uartHead = 0;
    }
    this.uartWireEnd = this.clock.nanos;
    if (!uart.enabled || !uart.rxEnabled) {
      this.uartDropped += 1; // nobody listening yet: the byte is gone
    } else if (uart.rxFIFO.full) {
      // PL011: the FIFO keeps its contents, the byte in the shift register is lost, the
      // overrun error is flagged (UARTRIS.OERIS; UARTDR.OE with the next byte read).
      this.uartOverruns.push(this.nanos);
      this.uartOverrun = true;
      uart.interruptStatus |= UART_OEINTR;
      uart.checkInterrupts();
    } else {
      uart.feedByte(byte | (this.uartOverrun ? UART_OE : 0));
      this.uartOverrun = false;
    }
    this.uartKick();
  }

  sendUSB(bytes) {
    this.usbHost.write(bytes); // one write, one transfer
  }

  sendUART(bytes) {
    for (const b of bytes) this.uartPending.push(b);
    this.uartKick();
  }
}
