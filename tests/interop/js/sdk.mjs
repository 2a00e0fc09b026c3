// Loads @a2a-js/sdk (and the peers it runs with: @grpc/grpc-js, express) from the
// node_modules of one folder, so that one program serves several SDK releases.
//
//   A2A_JS_SDK_DIR=/path/to/folder node their_client.mjs ...
//
// The folder is the one holding `node_modules/` (tests/interop/js for 1.3.0,
// tests/interop/js-1.0 for 1.0.0-beta.0, whose entry files set the variable);
// by default it is this file's folder. Subpaths are taken through the package's
// own `exports` map ("import" condition), as `import '@a2a-js/sdk/client'` would.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const SDK_DIR = process.env.A2A_JS_SDK_DIR || dirname(fileURLToPath(import.meta.url));

const pkgDir = join(SDK_DIR, 'node_modules', '@a2a-js', 'sdk');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

/** The installed @a2a-js/sdk version, e.g. "1.3.0" or "1.0.0-beta.0". */
export const SDK_VERSION = pkg.version;

/** True when the installed SDK is at least `major.minor.patch` (pre-releases count below). */
export function sdkAtLeast(want) {
  const [core, pre] = SDK_VERSION.split('-');
  const have = core.split('.').map(Number);
  const need = want.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if (have[i] !== need[i]) return have[i] > need[i];
  }
  return !pre;
}

/** `import('@a2a-js/sdk' + sub)` from SDK_DIR; undefined when the release has no such subpath. */
export async function sdk(sub = '') {
  const entry = pkg.exports[`.${sub}`];
  if (!entry) return undefined;
  const file = typeof entry === 'string' ? entry : entry.import ?? entry.default;
  return import(pathToFileURL(join(pkgDir, file)).href);
}

/** `require(name)` from SDK_DIR, for the CommonJS peers (the same copies the SDK uses). */
export const peer = createRequire(join(SDK_DIR, 'package.json'));
