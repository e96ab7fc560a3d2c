import { request } from 'node:http';
import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { appFetch, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';

interface Reply {
  status: number;
  setCookie: string[];
  location: string | undefined;
  body: string;
}

/** One HTTP request with the Host header a browser would send (fetch does not let a caller set it). */
function send(
  port: number,
  path: string,
  opts: { host: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        headers: { host: opts.host, accept: 'text/html', ...opts.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            setCookie: res.headers['set-cookie'] ?? [],
            location: res.headers.location,
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const cookieLine = (r: Reply, name: string) => r.setCookie.find((l) => l.startsWith(`${name}=`));
const attributes = (line: string | undefined) =>
  (line ?? '')
    .split(';')
    .slice(1)
    .map((a) => a.trim().toLowerCase());

describe('the console session cookie', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let http: HttpServerHandle;
  let key: string;

  beforeAll(async () => {
    // As a deployment behind a proxy would be: the public name allowed, loopback kept for local checks.
    const config = testConfig(dir.path, {
      LORE_RATE_LIMITS: 'false',
      LORE_PORT: '0',
      LORE_ALLOWED_HOSTS: 'lore.example.com,127.0.0.1',
    });
    lore = await startAllInOne(config, { services: [{ name: 'users', create: createUsersService }] });
    http = await serveHttp(lore.app, config, 0);
    const anon = await connectClient(appFetch(lore.app));
    key = (
      await ok<{ apiKey: string }>(anon, 'agent_register', {
        username: 'olivia',
        email: 'olivia@example.com',
        displayName: 'Olivia',
        bio: 'Owner.',
      })
    ).data.apiKey;
  }, 60_000);

  afterAll(async () => {
    await http?.close();
    await lore?.close();
    dir.cleanup();
  });

  /** Opens the sign-in form and posts the key, as a browser on `host` (seen at `origin`) would. */
  async function signIn(host: string, origin: string) {
    const form = await send(http.port, '/console/sign-in', { host });
    expect(form.status).toBe(200);
    const pre = cookieLine(form, 'lore_console_pre')!;
    expect(pre).toBeDefined();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const signedIn = await send(http.port, '/console/sign-in', {
      host,
      method: 'POST',
      headers: {
        origin,
        cookie: pre.split(';')[0]!,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: csrf, key }).toString(),
    });
    return { pre, signedIn };
  }

  it('is Secure on a public Host name, with HttpOnly and SameSite=Strict', async () => {
    const { pre, signedIn } = await signIn('lore.example.com', 'https://lore.example.com');
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/console/inbox');
    const session = cookieLine(signedIn, 'lore_console');
    expect(session).toBeDefined();
    expect(session).not.toContain(key);
    expect(attributes(session)).toEqual(
      expect.arrayContaining(['secure', 'httponly', 'samesite=strict', 'path=/console']),
    );
    // The sign-in form's own CSRF cookie is held to the same rule.
    expect(attributes(pre)).toContain('secure');
  });

  it('is not Secure on loopback, where the console is served over plain http', async () => {
    const host = `127.0.0.1:${http.port}`;
    const { pre, signedIn } = await signIn(host, `http://${host}`);
    expect(signedIn.status).toBe(303);
    const session = cookieLine(signedIn, 'lore_console');
    expect(session).toBeDefined();
    expect(attributes(session)).toEqual(expect.arrayContaining(['httponly', 'samesite=strict']));
    expect(attributes(session)).not.toContain('secure');
    expect(attributes(pre)).not.toContain('secure');
  });

  it('refuses a Host name the allowlist does not name', async () => {
    const r = await send(http.port, '/console/sign-in', { host: 'evil.example' });
    expect(r.status).toBe(403);
    expect(r.setCookie).toEqual([]);
  });
});

describe('the console sign-in under a flood of wrong keys', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let http: HttpServerHandle;

  beforeAll(async () => {
    const config = testConfig(dir.path, { LORE_RATE_LIMITS: 'false', LORE_PORT: '0' });
    lore = await startAllInOne(config, { services: [{ name: 'users', create: createUsersService }] });
    http = await serveHttp(lore.app, config, 0);
  }, 60_000);

  afterAll(async () => {
    await http?.close();
    await lore?.close();
    dir.cleanup();
  });

  it('answers 429 with a retry time once an address has failed ten times, and checks no further key', async () => {
    const host = `127.0.0.1:${http.port}`;
    const form = await send(http.port, '/console/sign-in', { host });
    const pre = cookieLine(form, 'lore_console_pre')!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const attempt = (key: string) =>
      send(http.port, '/console/sign-in', {
        host,
        method: 'POST',
        headers: {
          origin: `http://${host}`,
          cookie: pre,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ _csrf: csrf, key }).toString(),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) statuses.push((await attempt(`lore_sk_wrong${i}`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    // Of 300 wrong keys in a row, 10 were checked; every other attempt was refused unchecked.
    expect(statuses.filter((s) => s === 429)).toHaveLength(290);
    const last = await attempt('lore_sk_wrong_again');
    expect(last.status).toBe(429);
    expect(last.body).toMatch(/Too many failed sign-ins from here\. Try again in \d+ seconds?\./);
  });
});
