// Run a Python script under a real MicroPython (the WebAssembly build from npm).
//
//   node run.mjs [--mount HOST_DIR=MP_DIR]... [--file HOST_FILE=MP_FILE]... SCRIPT.py [ARG]...
//
// Each --mount copies the .py and .json files of HOST_DIR into MP_DIR inside the
// interpreter's filesystem and puts MP_DIR on sys.path; each --file copies one file
// (e.g. boardctl/link/protocol.py to /fw/protocol.py, as firmware/package.json deploys it).
// sys.argv is [SCRIPT, ARG...].
// Exit status 0 when the script finishes, 1 when it raises (the traceback goes to stderr).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { loadMicroPython } = await import(
  path.join(here, "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs")
);

const args = process.argv.slice(2);
const mounts = [];
const files = [];
while (args[0] === "--mount" || args[0] === "--file") {
  (args[0] === "--mount" ? mounts : files).push(args[1].split("="));
  args.splice(0, 2);
}
if (args.length < 1) {
  console.error("usage: node run.mjs [--mount HOST_DIR=MP_DIR]... SCRIPT.py [ARG]...");
  process.exit(2);
}
const [script, ...scriptArgs] = args;

const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

function mkdirs(dir) {
  let current = "";
  for (const part of dir.split("/").filter(Boolean)) {
    current += "/" + part;
    try {
      mp.FS.mkdir(current);
    } catch (e) {
      // already there
    }
  }
}

const paths = [];
for (const [hostDir, mpDir] of mounts) {
  mkdirs(mpDir);
  for (const name of fs.readdirSync(hostDir)) {
    if (name.endsWith(".py") || name.endsWith(".json")) {
      mp.FS.writeFile(mpDir + "/" + name, fs.readFileSync(path.join(hostDir, name)));
    }
  }
  paths.push(mpDir);
}
for (const [hostFile, mpFile] of files) {
  mkdirs(path.posix.dirname(mpFile));
  mp.FS.writeFile(mpFile, fs.readFileSync(hostFile));
}

const prelude =
  "import sys\n" +
  `sys.path[:0] = ${JSON.stringify(paths)}\n` +
  `sys.argv[:] = ${JSON.stringify([script, ...scriptArgs])}\n`;
try {
  mp.runPython(prelude);
  mp.runPython(fs.readFileSync(script, "utf8"));
} catch (error) {
  process.stderr.write(String(error.message || error) + "\n");
  process.exit(1);
}
