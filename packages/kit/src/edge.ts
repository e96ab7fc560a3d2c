import { BlockList, isIP } from 'node:net';
import { ConfigError } from './config.js';

/**
 * The addresses whose X-Forwarded-For is believed (`LORE_TRUSTED_PROXIES`: addresses and
 * CIDR ranges, comma-separated). A bad entry stops the process with a message naming it.
 */
export function trustedProxies(spec: string | undefined): BlockList {
  const list = new BlockList();
  for (const entry of (spec ?? '').split(',').map((e) => e.trim())) {
    if (!entry) continue;
    const [addr = '', bits] = entry.split('/');
    const family = isIP(addr);
    const prefix = bits === undefined ? undefined : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (!family || (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > max)))
      throw new ConfigError([
        `LORE_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)`,
      ]);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, prefix, type);
  }
  return list;
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) as `10.0.0.1`. */
function plain(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
}

function isTrusted(list: BlockList, address: string): boolean {
  const a = plain(address);
  const family = isIP(a);
  return family !== 0 && list.check(a, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The client's address: the socket's peer, unless the peer is a trusted proxy, in which case
 * X-Forwarded-For is read from the right (the hop nearest us) past every trusted proxy. A
 * client cannot choose its address by sending the header: an untrusted peer's is ignored.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: BlockList,
): string | undefined {
  if (!peer) return undefined;
  if (!forwardedFor || !isTrusted(trusted, peer)) return plain(peer);
  const hops = forwardedFor
    .split(',')
    .map((h) => plain(h.trim()))
    .filter((h) => isIP(h) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) if (!isTrusted(trusted, hops[i]!)) return hops[i];
  return hops[0] ?? plain(peer);
}

/**
 * Whether a JSON text nests arrays and objects deeper than `max`, found by one linear scan
 * (strings skipped) before `JSON.parse` builds anything: a deeply nested body is refused for
 * the price of reading it. A string is skipped by searching for its closing quote (one not
 * behind an odd run of backslashes), several times faster than stepping through it on bodies
 * that are mostly text (a knowledge source, a note).
 */
export function jsonTooDeep(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i = stringEnd(text, i);
      if (i < 0) return false;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

/** The index of the quote closing the string opened at `open`, or -1 if it is not closed. */
function stringEnd(text: string, open: number): number {
  for (let q = text.indexOf('"', open + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let b = q - 1;
    while (text.charCodeAt(b) === 92 /* backslash */) b--;
    // An even run of backslashes (or none) escapes only itself: this quote ends the string.
    if ((q - 1 - b) % 2 === 0) return q;
  }
  return -1;
}
