/**
 * Timing spans from the outside: wraps methods of an object (a bus, a directory, a repository)
 * to count calls and sum their wall time, without touching the service code. Used with
 * BENCH_TRACE=1 to find where a suite's time goes.
 */
export class Spans {
  private readonly stats = new Map<string, { n: number; ms: number; max: number }>();

  /** Wraps `obj[method]` (async or not); `key` may name the span after the call's arguments. */
  wrap<T extends object>(
    obj: T,
    method: keyof T & string,
    name: string,
    key?: (args: unknown[]) => string,
  ): void {
    const original = (obj[method] as (...a: unknown[]) => unknown).bind(obj);
    const record = (label: string, t0: number) => {
      const ms = performance.now() - t0;
      const s = this.stats.get(label) ?? { n: 0, ms: 0, max: 0 };
      s.n++;
      s.ms += ms;
      s.max = Math.max(s.max, ms);
      this.stats.set(label, s);
    };
    (obj as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const label = key ? `${name} ${key(args)}` : name;
      const t0 = performance.now();
      const r = original(...args);
      if (r && typeof (r as Promise<unknown>).then === 'function')
        return (r as Promise<unknown>).finally(() => record(label, t0));
      record(label, t0);
      return r;
    };
  }

  /**
   * Wraps `obj[method](first, handler)` registrations (a bus's reply/subscribe/listen) so that
   * every call of the registered handler is timed under `name <label of first>`.
   */
  wrapHandlers<T extends object>(
    obj: T,
    method: keyof T & string,
    name: string,
    label: (first: unknown) => string,
  ): void {
    const original = (obj[method] as (...a: unknown[]) => unknown).bind(obj);
    (obj as Record<string, unknown>)[method] = (
      first: unknown,
      handler: (...a: unknown[]) => unknown,
      ...rest: unknown[]
    ) => {
      const span = `${name} ${label(first)}`;
      const holder = { h: handler };
      this.wrap(holder, 'h', span);
      return original(first, holder.h, ...rest);
    };
  }

  reset(): void {
    this.stats.clear();
  }

  report(title: string): string {
    const lines = [...this.stats.entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(
        ([k, s]) =>
          `  ${k.padEnd(60)} ${String(s.n).padStart(7)} calls ${s.ms.toFixed(0).padStart(8)} ms total ${(s.ms / s.n).toFixed(2).padStart(8)} ms mean ${s.max.toFixed(1).padStart(8)} ms max`,
      );
    return `${title}\n${lines.join('\n')}\n`;
  }
}
