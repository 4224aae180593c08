import http from 'node:http';

/** One server-sent event as a client reads it. */
export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every event so far, in order (comments are counted, not kept). */
  events: SseEvent[];
  comments: number;
  /** Raw body of a refused (non-200) answer. */
  body: string;
  ended: Promise<void>;
  isEnded(): boolean;
  /** Resolves once `pred` holds for the events read so far; rejects after `timeoutMs`. */
  until(what: string, pred: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

/**
 * Opens an event stream the way EventSource does (Accept: text/event-stream, Last-Event-ID on a
 * reconnect) on its own connection, and parses it as the HTML standard says (fields per line, an
 * event per blank line, `:` comments).
 */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      const waiters = new Set<() => void>();
      let ended = false;
      let buffer = '';
      let finish!: () => void;
      const stream: SseStream = {
        status: res.statusCode!,
        headers: res.headers,
        events: [],
        comments: 0,
        body: '',
        ended: new Promise<void>((r) => (finish = r)),
        isEnded: () => ended,
        until(what, pred, timeoutMs = 30_000) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (pred(stream.events)) {
                waiters.delete(check);
                clearTimeout(timer);
                ok(stream.events);
              } else if (ended) {
                waiters.delete(check);
                clearTimeout(timer);
                fail(new Error(`stream ended before ${what}: ${JSON.stringify(stream.events)}`));
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`timed out waiting for ${what}: ${JSON.stringify(stream.events)}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close: () => req.destroy(),
      };
      const done = () => {
        if (ended) return;
        ended = true;
        finish();
        for (const w of [...waiters]) w();
      };
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) {
          stream.body += chunk;
          return;
        }
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const ev: Partial<SseEvent> & { lines: string[] } = { lines: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments += 1;
            else if (line.startsWith('event: ')) ev.event = line.slice(7);
            else if (line.startsWith('id: ')) ev.id = line.slice(4);
            else if (line.startsWith('data: ')) ev.lines.push(line.slice(6));
          }
          if (ev.lines.length) stream.events.push({ event: ev.event ?? 'message', ...(ev.id ? { id: ev.id } : {}), data: JSON.parse(ev.lines.join('\n')) });
        }
        for (const w of [...waiters]) w();
      });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
      resolve(stream);
    });
    req.on('error', reject);
  });
}
