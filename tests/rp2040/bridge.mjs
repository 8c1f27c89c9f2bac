// Runs the emulated Pico (pico.mjs) and bridges it to this process:
//   stdin       -> the device's link (USB CDC or UART0 RX), raw bytes
//   stdout      <- what the device sends on that link, raw bytes
//   --events FD <- one JSON line per event (below), emulated times in ns
//   --control FD-> one JSON line per command: {"cmd": "bootsel", "pressed": false},
//                  {"cmd": "hang"}, {"cmd": "stop"}
//
// Events: "time" (every --tick-ms of emulated time), "out" (bytes written to stdout so
// far, at the end of the slice that made the last of them), "usb-connected" (the port enumerated:
// VID, PID, strings, interfaces, endpoints, line coding read back, descriptors),
// "usb-disconnected", "rx-start" (bytes written after all before had arrived: the
// host's write, as the chip's clock saw it, and the count of bytes before it), "rx-done"
// (the last byte written so far has reached the device; the count written so far), "ws2812" (a frame on the LED pin:
// start, duration, bits, GRB hex, bit timings), "tone" (a tone on the buzzer pin: start,
// end, mean period and high time, cycles), "status-led", "watchdog-reset", "uart-overrun"
// (a byte lost at UART0's full RX FIFO), "done" (a control command was carried out), "end".
//
// --real-time: emulated time never runs ahead of the wall clock (rp2040js skips through a
// chip's idle waits), for host programs that time themselves against the chip as against
// a real one: mpremote's `reset` closes the port within the 100 ms the chip sleeps first.
// --no-catch-up (with --real-time): time the chip fell behind the wall clock (a busy host)
// is not made up by skipping through its idle waits later, so its timers (the watchdog's
// update window) never run out in one jump; its clock runs at most as fast as the wall's.
//
// usage: node bridge.mjs --bin IMAGE --fs FS.img [--link usb|uart] [--bootsel]
//        [--events FD] [--control FD] [--max-emu-s 600] [--tick-ms 20] [--tone-pin N]
//        [--real-time [--no-catch-up]]
import fs from 'node:fs';
import readline from 'node:readline';
import { Pico } from './pico.mjs';

const argv = process.argv.slice(2);
const args = {};
for (let i = 0; i < argv.length; i++) {
  if (!argv[i].startsWith('--')) continue;
  const next = argv[i + 1];
  args[argv[i].slice(2)] = next !== undefined && !next.startsWith('--') ? next : true;
}
const link = args.link ?? 'usb';
const maxEmuNs = Number(args['max-emu-s'] ?? 600) * 1e9;
const tickNs = Number(args['tick-ms'] ?? 20) * 1e6;
const pico = new Pico({
  bin: args.bin,
  fs: args.fs,
  bootsel: !!args.bootsel,
  tonePin: Number(args['tone-pin'] ?? -1),
});

const events = args.events ? fs.createWriteStream(null, { fd: Number(args.events) }) : null;
const emit = (obj) => events && events.write(JSON.stringify(obj) + '\n');

let stopped = false;
let rxWaiting = false; // bytes were written and have not all reached the device yet
let received = 0; // bytes written so far
process.stdin.on('data', (chunk) => {
  if (!rxWaiting) emit({ event: 'rx-start', t_ns: pico.nanos, first: received });
  received += chunk.length;
  if (link === 'uart') pico.sendUART(chunk);
  else pico.sendUSB(chunk);
  rxWaiting = true;
});
process.stdin.on('end', () => (stopped = true));
if (args.control) {
  const control = readline.createInterface({ input: fs.createReadStream(null, { fd: Number(args.control) }) });
  control.on('line', (line) => {
    const command = JSON.parse(line);
    if (command.cmd === 'bootsel') pico.setBootsel(!!command.pressed);
    else if (command.cmd === 'hang') pico.hang();
    else if (command.cmd === 'stop') stopped = true;
    emit({ event: 'done', cmd: command.cmd, t_ns: pico.nanos });
  });
}

const sent = { out: 0, frames: 0, resets: 0, led: 0, tones: 0, usb: 0, overruns: 0 };
let nextTick = 0;

function flush() {
  const out = link === 'uart' ? pico.uartOut : pico.cdcOut;
  if (out.length > sent.out) {
    process.stdout.write(Buffer.from(out.slice(sent.out)));
    emit({ event: 'out', t_ns: pico.nanos, total: out.length });
    sent.out = out.length;
  }
  while (sent.usb < pico.usbEvents.length) emit(pico.usbEvents[sent.usb++]);
  while (sent.resets < pico.resets.length) {
    emit({ event: 'watchdog-reset', t_ns: pico.resets[sent.resets++] });
  }
  while (sent.overruns < pico.uartOverruns.length) {
    emit({ event: 'uart-overrun', t_ns: pico.uartOverruns[sent.overruns++] });
  }
  while (sent.led < pico.statusLed.length) {
    const [t, on] = pico.statusLed[sent.led++];
    emit({ event: 'status-led', t_ns: t, on });
  }
  if (rxWaiting && pico.pending === 0) {
    rxWaiting = false;
    emit({ event: 'rx-done', t_ns: pico.nanos, total: received });
  }
  const frames = pico.ws.frames;
  while (sent.frames < frames.length) {
    const f = frames[sent.frames++];
    emit({
      event: 'ws2812',
      t_ns: f.end,
      start_ns: f.start,
      nbits: f.nbits,
      hex: Buffer.from(f.bytes).toString('hex'),
      t0h: f.t0h,
      t1h: f.t1h,
      period: f.period,
    });
  }
  const tones = pico.tone.tones;
  while (sent.tones < tones.length) {
    const tone = tones[sent.tones++];
    emit({ event: 'tone', t_ns: tone.end, start_ns: tone.start, period_ns: tone.period, high_ns: tone.high, cycles: tone.cycles });
  }
  tones.length = 0;
  sent.tones = 0;
  frames.length = 0; // (keeps memory flat in long runs)
  sent.frames = 0;
  if (pico.nanos >= nextTick) {
    nextTick = pico.nanos + tickNs;
    emit({ event: 'time', t_ns: pico.nanos, tone_level: pico.tone.level });
  }
}

function loop() {
  // Short slices while bytes are in flight (for fine arrival times), longer ones idle.
  pico.run(rxWaiting ? 2e5 : 2e6);
  flush();
  if (stopped || pico.nanos >= maxEmuNs) {
    emit({ event: 'end', t_ns: pico.nanos, resets: pico.resets.length });
    const finish = () => {
      if (process.stdout.writableLength === 0) process.exit(0);
      process.stdout.once('drain', () => process.exit(0));
    };
    if (events) events.end(finish);
    else finish();
    return;
  }
  let ahead_ms = realTime ? (pico.nanos - startNs) / 1e6 - (performance.now() - startMs) : 0;
  if (ahead_ms < 0 && !catchUp) {
    // behind the wall clock (a busy host): forget the lag, do not skip ahead to make it up
    startNs = pico.nanos;
    startMs = performance.now();
    ahead_ms = 0;
  }
  if (ahead_ms > 1) setTimeout(loop, ahead_ms);
  else setImmediate(loop);
}
const realTime = !!args['real-time'];
const catchUp = !args['no-catch-up'];
let startNs = pico.nanos;
let startMs = performance.now();
loop();
