/**
 * A small seeded PRNG (sfc32, seeded through splitmix32): the same seed always gives the
 * same corpus, on every platform and Node version, which `Math.random` cannot promise.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const split = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = split();
    this.b = split();
    this.c = split();
    this.d = split();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** Uniform 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new RangeError("pick from an empty list");
    return item;
  }

  /** `k` distinct items (fewer when the list is shorter), in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < k && pool.length > 0) {
      out.push(pool.splice(this.int(pool.length), 1)[0] as T);
    }
    return out;
  }

  /** A random (version 4 layout) UUID drawn from this generator. */
  uuid(): string {
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    const w = [this.uint32(), this.uint32(), this.uint32(), this.uint32()].map(hex).join("");
    const variant = ((Number.parseInt(w[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
    return `${w.slice(0, 8)}-${w.slice(8, 12)}-4${w.slice(13, 16)}-${variant}${w.slice(17, 20)}-${w.slice(20, 32)}`;
  }
}

/** Seed of a corpus when none is given. */
export const DEFAULT_SEED = 42;
