import net from 'node:net';

/**
 * A TCP port that was free on 127.0.0.1 a moment ago, for a server about to be started on it (the
 * embedded Postgres, `npm run cluster`'s processes, a test's or a bench's servers). The one copy:
 * scripts/, test/ and bench/ import it from here.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
