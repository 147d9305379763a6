// Base class for TypeScript objects that own a native handle: close() frees it at once;
// if the object is garbage-collected unclosed, a FinalizationRegistry closes it.
import type { NativeHandleRef } from './native-addon.js';

type CloseFn = (handle: NativeHandleRef) => void;

// The held value must not reference the owner, or the owner could never be collected.
const registry = new FinalizationRegistry<{ handle: NativeHandleRef; close: CloseFn }>(({ handle, close }) => {
  close(handle);
});

export abstract class NativeHandle {
  #handle: NativeHandleRef | null;
  readonly #close: CloseFn;

  protected constructor(handle: NativeHandleRef, close: CloseFn) {
    this.#handle = handle;
    this.#close = close;
    registry.register(this, { handle, close }, this);
  }

  /** The live handle; throws once closed. */
  protected get handle(): NativeHandleRef {
    const h = this.#handle;
    if (h === null) throw new Error(`${this.constructor.name} is closed`);
    return h;
  }

  get closed(): boolean {
    return this.#handle === null;
  }

  /** Frees the native memory now. Idempotent. */
  close(): void {
    const h = this.#handle;
    if (h === null) return;
    this.#handle = null;
    registry.unregister(this);
    this.#close(h);
  }
}
