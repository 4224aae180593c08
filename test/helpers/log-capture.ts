import { Writable } from 'node:stream';

/** A pino destination that keeps each line it is given, parsed, in `lines`. */
export function logCapture<T = Record<string, unknown>>(): { lines: T[]; dest: Writable } {
  const lines: T[] = [];
  const dest = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as T);
      cb();
    },
  });
  return { lines, dest };
}
