import { isLoopbackAddress } from '../../src/infra/trust-proxy';

describe('isLoopbackAddress', () => {
  it.each(['127.0.0.1', '127.9.9.9', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', ' 127.0.0.1 '])('when %j, then it is loopback', (a) => {
    expect(isLoopbackAddress(a)).toBe(true);
  });

  it.each(['10.200.1.2', '::ffff:10.0.0.1', '128.0.0.1', '::', '::2', 'unknown', '127.0.0.1:80', '', undefined])(
    'when %j, then it is not (a port or a name is never trusted as loopback)',
    (a) => {
      expect(isLoopbackAddress(a)).toBe(false);
    },
  );
});
