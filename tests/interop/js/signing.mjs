// Agent Card signatures with the official JS SDK's own functions
// (generateAgentCardSignature, verifyAgentCardSignature), for the cross-SDK signature check
// of tests/interop/run.py.
//
//   node signing.mjs sign KEY.jwk CARD OUT   the SDK signs CARD (header alg, kid, typ JOSE)
//   node signing.mjs verify JWKS CARD        exit 0 when the SDK verifies a signature, 1 when not
import fs from 'node:fs';
import { AgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';

const read = (p) => JSON.parse(fs.readFileSync(p, 'utf8'));
const [cmd, ...rest] = process.argv.slice(2);

if (cmd === 'sign') {
  const [keyFile, cardFile, out] = rest;
  const jwk = read(keyFile);
  const signed = await generateAgentCardSignature(jwk, { alg: jwk.alg, kid: jwk.kid, typ: 'JOSE' })(read(cardFile));
  fs.writeFileSync(out, JSON.stringify(AgentCard.toJSON(AgentCard.fromJSON(signed))));
} else if (cmd === 'verify') {
  const [jwksFile, cardFile] = rest;
  const keys = read(jwksFile).keys;
  // The SDK reports each failed signature with console.debug; keep it with the verdict.
  console.debug = (...a) => console.log('sdk:', ...a);
  try {
    await verifyAgentCardSignature(async (kid) => {
      const k = keys.find((j) => j.kid === kid);
      if (!k) throw new Error(`no key ${kid}`);
      return k;
    })(read(cardFile));
    console.log('verified');
  } catch (e) {
    console.log(`not verified: ${e.message}`);
    process.exitCode = 1;
  }
} else {
  console.error('usage: signing.mjs sign KEY.jwk CARD OUT | verify JWKS CARD');
  process.exitCode = 2;
}
