// What was sent, by global message number, and what each consumer saw of it.

import type { Json } from '../../test/helpers/server.js';

/** Global message number -> who should receive it (agent indexes; observers get everything). */
export const audience: (number[] | undefined)[] = [];
export const sentAt: number[] = [];
let nextG = 0;

/** The next global message number. */
export const nextNumber = (): number => nextG++;

/** One consumer's view: a bitset over global message numbers. */
export class Seen {
  private bits = new Uint8Array(1 << 16);
  duplicates = 0;
  count = 0;
  add(g: number): void {
    if (g >= this.bits.length * 8) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, (g >> 3) + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (g & 7);
    if (this.bits[g >> 3]! & mask) this.duplicates++;
    else {
      this.bits[g >> 3]! |= mask;
      this.count++;
    }
  }
  has(g: number): boolean {
    return g < this.bits.length * 8 && (this.bits[g >> 3]! & (1 << (g & 7))) !== 0;
  }
}

export const gOf = (m: Json): number | undefined => {
  const text = m?.parts?.[0]?.text;
  const x = typeof text === 'string' ? /^soak g=(\d+) /.exec(text) : null;
  return x ? Number(x[1]) : undefined;
};
