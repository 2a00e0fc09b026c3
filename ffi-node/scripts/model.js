#!/usr/bin/env node
// Writes model.js and model.d.ts from the generator compiled into the native module
// (codegen/types.rs, run by build.rs); `--check` fails instead when the committed copies
// differ from what the generator makes (`make node-check`).
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const native = require("../native.js");

const root = path.join(__dirname, "..");
const files = { "model.js": native.modelJs(), "model.d.ts": native.modelTypes() };
const check = process.argv.includes("--check");
let drift = 0;
for (const [name, text] of Object.entries(files)) {
  const p = path.join(root, name);
  if (check) {
    const have = fs.existsSync(p) ? fs.readFileSync(p, "utf8") : "";
    if (have !== text) {
      console.error(`ffi-node/${name} differs from what the generator makes: run make node-model and commit it`);
      drift += 1;
    }
  } else {
    fs.writeFileSync(p, text);
  }
}
process.exit(drift ? 1 : 0);
