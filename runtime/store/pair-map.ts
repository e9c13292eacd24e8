// A map keyed by two strings (account id and endpoint instance): a map of maps, so a lookup on the
// request path joins no strings (a `${a}|${b}` key is a new string per call, flattened to be hashed).

export class PairMap<V> {
  readonly #outer = new Map<string, Map<string, V>>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(a: string, b: string): V | undefined {
    return this.#outer.get(a)?.get(b);
  }

  set(a: string, b: string, value: V): void {
    let inner = this.#outer.get(a);
    if (!inner) {
      inner = new Map();
      this.#outer.set(a, inner);
    }
    if (!inner.has(b)) this.#size++;
    inner.set(b, value);
  }

  delete(a: string, b: string): boolean {
    const inner = this.#outer.get(a);
    if (!inner?.delete(b)) return false;
    this.#size--;
    if (inner.size === 0) this.#outer.delete(a);
    return true;
  }
}
