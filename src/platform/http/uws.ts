import { createRequire } from 'node:module';
import type * as Uws from 'uWebSockets.js';

export type { Uws };

/**
 * Loads uWebSockets.js (an npm alias of a v20.30 mirror). The mirror falls back to a slow
 * JavaScript imitation when its native binary does not load; we refuse to run on that.
 */
function loadUws(): typeof Uws {
  if (/^(1|true)$/i.test(process.env['UWS_USE_FALLBACK'] ?? '')) {
    throw new Error('UWS_USE_FALLBACK is set: the gateway runs only on the native uWebSockets.js binary. Unset it.');
  }
  const require = createRequire(import.meta.url);
  const originalWarn = console.warn;
  const warnings: string[] = [];
  console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  let uws: typeof Uws;
  try {
    uws = require('uWebSockets.js') as typeof Uws;
  } finally {
    console.warn = originalWarn;
  }
  const native = typeof uws.App === 'function' && /\[native code\]/.test(Function.prototype.toString.call(uws.App));
  if (!native) {
    throw new Error(
      `uWebSockets.js native binary did not load for Node ${process.version} ` +
        `(${process.platform}-${process.arch}, ABI ${process.versions.modules}). ` +
        `Reinstall with "npm ci" on a supported platform. Loader said: ${warnings.join(' ') || 'nothing'}`,
    );
  }
  return uws;
}

export const uws = loadUws();
