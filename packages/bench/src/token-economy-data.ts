/**
 * Inputs of the `token-economy` benchmark: deterministic data sets, the question
 * asked about each, and how its answer is computed (in jq for the agent's shell
 * command, in JavaScript for an inline result and for the check).
 */

/** A seeded PRNG (mulberry32): the same data on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CITIES = ["Lyon", "Oslo", "Porto", "Quito", "Riga", "Sofia", "Tunis", "Utrecht"];
const STATUSES = ["paid", "shipped", "delivered", "refunded", "cancelled"];

/** 2,000 orders, each with a nested customer, address and line items. */
function orders(count = 2000): { orders: unknown[] } {
  const r = rng(7);
  const list = Array.from({ length: count }, (_, i) => {
    const items = Array.from({ length: 1 + Math.floor(r() * 4) }, (_, j) => ({
      sku: `SKU-${String(Math.floor(r() * 900) + 100)}`,
      qty: 1 + Math.floor(r() * 5),
      price: Math.round(r() * 20000) / 100,
      line: j + 1,
    }));
    const total = Math.round(items.reduce((s, it) => s + it.qty * it.price, 0) * 100) / 100;
    return {
      id: `ORD-${String(i + 1).padStart(5, "0")}`,
      status: STATUSES[Math.floor(r() * STATUSES.length)],
      customer: {
        id: `C-${String(Math.floor(r() * 700)).padStart(4, "0")}`,
        name: `Customer ${Math.floor(r() * 700)}`,
        address: { city: CITIES[Math.floor(r() * CITIES.length)], zip: `${10000 + i}` },
      },
      items,
      total,
    };
  });
  return { orders: list };
}

/**
 * Flat records: `region` is skewed (region k is drawn with weight 1/(k+1)) so the
 * top 5 by count are distinct and stable.
 */
function records(count: number, seed = 11): Record<string, unknown>[] {
  const r = rng(seed);
  const regions = Array.from({ length: 12 }, (_, k) => `region-${String(k + 1).padStart(2, "0")}`);
  const weights = regions.map((_, k) => 1 / (k + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const pick = () => {
    let x = r() * sum;
    for (let k = 0; k < weights.length; k++) {
      x -= weights[k] as number;
      if (x <= 0) return regions[k] as string;
    }
    return regions[regions.length - 1] as string;
  };
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    region: pick(),
    status: r() < 0.2 ? "failed" : "ok",
    product: `P-${Math.floor(r() * 300)}`,
    amount: Math.round(r() * 100000) / 100,
  }));
}

/** One question about one tool's result. */
export interface Question {
  /** The prompt given to the client. */
  prompt: string;
  /** Field names the agent must know before it can write its command (its "idea of the shape"). */
  needs: string[];
  /** Keys from the whole result value to its records array (`[]`: the value is the array). */
  path: string[];
  /** jq from the records array to the answer (printed with `jq -c`). */
  jq: string;
  /** The same in JavaScript, from the records array. */
  answer(records: unknown[]): unknown;
}

type Rec = Record<string, unknown>;

/** Top 5 regions by count. */
export const TOP_REGIONS: Omit<Question, "prompt" | "path"> = {
  needs: ["region"],
  jq: "group_by(.region)|map({region:.[0].region,count:length})|sort_by(-.count)|.[:5]",
  answer(recs) {
    const counts = new Map<string, number>();
    for (const r of recs as Rec[])
      counts.set(String(r.region), (counts.get(String(r.region)) ?? 0) + 1);
    return [...counts]
      .map(([region, count]) => ({ region, count }))
      .sort((a, b) => b.count - a.count || a.region.localeCompare(b.region))
      .slice(0, 5);
  },
};

/** How many records failed. */
export const FAILED: Omit<Question, "prompt" | "path"> = {
  needs: ["status"],
  jq: 'map(select(.status=="failed"))|length',
  answer: (recs) => (recs as Rec[]).filter((r) => r.status === "failed").length,
};

/** One order's customer and total. */
export function lookupOrder(id: string): Omit<Question, "prompt" | "path"> {
  return {
    needs: ["id", "customer", "total"],
    jq: `map(select(.id=="${id}"))[0]|{customer:.customer.name,total}`,
    answer(recs) {
      const o = (recs as Rec[]).find((r) => r.id === id) as Rec;
      return { customer: (o.customer as Rec).name, total: o.total };
    },
  };
}

/** How many `.json` files a `directory_tree` result lists, at any depth. */
export const JSON_FILES: Omit<Question, "prompt" | "path"> = {
  needs: ["name", "type"],
  jq: '[..|objects|select(.type=="file" and (.name|endswith(".json")))]|length',
  answer(recs) {
    let n = 0;
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") {
        const o = v as Rec;
        if (o.type === "file" && String(o.name).endsWith(".json")) n++;
        Object.values(o).forEach(walk);
      }
    };
    walk(recs);
    return n;
  },
};

/** Row count of the medium result: about 2,000 o200k tokens as compact JSON. */
const MEDIUM_ROWS = 77;

/** A report of `rows` records, the shape of the medium one (the size sweep). */
export function sizedReport(rows: number): { items: Record<string, unknown>[] } {
  return { items: records(rows, 23) };
}

/** The fixture server's tools (no arguments) and the data each returns. */
export const DATASETS: Record<string, () => unknown> = {
  list_orders: () => orders(),
  list_records: () => records(5000),
  medium_report: () => sizedReport(MEDIUM_ROWS),
  small_report: () => ({ items: records(5, 29) }),
};

/** Matches per memory type (as `group_by` orders them). */
export const BY_MEMORY_TYPE: Omit<Question, "prompt" | "path"> = {
  needs: ["memory_type"],
  jq: "group_by(.memory_type)|map({memory_type:.[0].memory_type,count:length})",
  answer(recs) {
    const counts = new Map<string, number>();
    for (const r of recs as Rec[]) {
      const t = String(r.memory_type);
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return [...counts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([memory_type, count]) => ({ memory_type, count }));
  },
};
