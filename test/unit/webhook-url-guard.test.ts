import dnsPromises from 'node:dns/promises';
import { classify, UrlRefused, vetUrl } from '../../src/modules/webhook-endpoints/url-guard';

afterEach(() => jest.restoreAllMocks());

describe('classify', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
    ['127.0.0.1', 'private'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.169.254', 'forbidden'],
    ['169.254.0.1', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['::', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['::ffff:a9fe:a9fe', 'forbidden'],
    ['::ffff:127.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'forbidden'],
    ['not an address', 'forbidden'],
  ])('when the address is %s, then it is %s', (address, expected) => {
    expect(classify(address)).toBe(expected);
  });
});

describe('vetUrl', () => {
  const publicDns = () => jest.spyOn(dnsPromises, 'lookup').mockResolvedValue([{ address: '93.184.216.34', family: 4 }] as never);

  it('when NODE_ENV is production, then plain http to a public host is refused and https is taken', async () => {
    publicDns();
    await expect(vetUrl('http://hooks.partner.test/x', { production: true, allowPrivate: false })).rejects.toThrow(UrlRefused);
    await expect(vetUrl('https://hooks.partner.test/x', { production: true, allowPrivate: false })).resolves.toMatchObject({ address: '93.184.216.34', family: 4 });
    await expect(vetUrl('http://hooks.partner.test/x', { production: false, allowPrivate: false })).resolves.toMatchObject({ address: '93.184.216.34' });
  });

  it('when WEBHOOK_ALLOW_PRIVATE is on, then a private receiver over http is taken even in production, link-local never', async () => {
    await expect(vetUrl('http://127.0.0.1:9/x', { production: true, allowPrivate: true })).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(vetUrl('http://169.254.169.254/', { production: false, allowPrivate: true })).rejects.toThrow(/link-local/);
  });

  it('when the URL carries credentials, another scheme, or a name that does not resolve, then it is refused', async () => {
    await expect(vetUrl('https://user:pw@93.184.216.34/', { production: false, allowPrivate: false })).rejects.toThrow(/credentials/);
    await expect(vetUrl('ftp://93.184.216.34/', { production: false, allowPrivate: false })).rejects.toThrow(/https/);
    jest.spyOn(dnsPromises, 'lookup').mockRejectedValue(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    await expect(vetUrl('https://nowhere.partner.test/', { production: false, allowPrivate: false })).rejects.toMatchObject({ transient: true });
  });
});
