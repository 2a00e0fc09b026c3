#!/usr/bin/env node
// their_server.mjs for @a2a-js/sdk 1.0.0-beta.0: runs ../js/their_server.mjs (the program shared
// with 1.3.0; same flags) with the SDK installed in this folder (npm ci here).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.A2A_JS_SDK_DIR = dirname(fileURLToPath(import.meta.url));
await import('../js/their_server.mjs');
