import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses a crawler must not reach on its own: loopback, private, link-local, and the like. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

/** Whether an IP address is loopback, private, link-local, unspecified or multicast. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const a = mapped ?? address;
  const family = isIP(a);
  if (!family) return true;
  return PRIVATE.check(a, family === 6 ? 'ipv6' : 'ipv4');
}

export type Resolve = (host: string) => Promise<string[]>;

const resolveAll: Resolve = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/**
 * Refuses a URL whose host is, or resolves to, a private address (unless allowed). What a
 * site's own pages and redirects may point the crawler at must stay on the public internet,
 * or ingestion becomes a way to read the operator's internal services.
 */
export async function assertPublic(url: URL, resolve: Resolve = resolveAll): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await resolve(host);
  const bad = addresses.find(isPrivateAddress);
  if (bad !== undefined)
    throw new Error(
      `${url.host} is a private or loopback address (${bad}); set LORE_CRAWL_ALLOW_PRIVATE=true to crawl it`,
    );
}

/** A response body as text, refused once it passes `maxBytes` (the rest is never read). */
export async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new Error(`larger than ${maxBytes} bytes (Content-Length ${declared})`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`larger than ${maxBytes} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
