import t from 'tap';
import { publicAddressOf, publicUrl } from '../../src/proxy/public-url.js';

t.test('a URL names the port only when it is not the scheme’s default', async (t) => {
  t.equal(publicUrl('shop.example.com', { scheme: 'http', port: 80 }), 'http://shop.example.com');
  t.equal(publicUrl('shop.example.com', { scheme: 'https', port: 443 }), 'https://shop.example.com');
  t.equal(publicUrl('shop.example.com', { scheme: 'http', port: 8080 }), 'http://shop.example.com:8080');
  t.equal(publicUrl('shop.example.com', { scheme: 'https', port: 8443 }), 'https://shop.example.com:8443');
  t.equal(publicUrl('shop.example.com', { scheme: 'http', port: 443 }), 'http://shop.example.com:443', 'each scheme has its own default');
});

t.test('HTTPS only when Caddy issues certificates', async (t) => {
  const config = (mode: 'caddy' | 'off') => ({ proxy: { mode, httpPort: 8080, httpsPort: 8443 } }) as Parameters<typeof publicAddressOf>[0];
  const settings = (httpsEnabled: boolean) => ({ httpsEnabled }) as Parameters<typeof publicAddressOf>[1];
  t.same(publicAddressOf(config('caddy'), settings(true)), { scheme: 'https', port: 8443 });
  t.same(publicAddressOf(config('caddy'), settings(false)), { scheme: 'http', port: 8080 });
  t.same(publicAddressOf(config('off'), settings(true)), { scheme: 'http', port: 8080 }, 'no proxy of ours: nothing issues certificates');
});
