import { join as joinPath } from 'node:path';
import { createApprovalsService } from '@lore/approvals';
import { type HttpServerHandle, serveHttp } from '@lore/kit';
import {
  appFetch,
  type Client,
  connectClient,
  freePort,
  NatsAuthFixture,
  NatsServerProcess,
  ok,
  tempDir,
  testConfig,
} from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { createQueriesService } from '@lore/queries';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, type Distributed, startAllInOne, startDistributed } from '../src/index.js';
import type { UpstreamConfig } from '../src/upstream-config.js';
import { QUANTUM_TXT, QUESTION } from './fixtures/knowledge.js';

const SERVICES = [
  { name: 'users', create: createUsersService },
  { name: 'knowledge', create: createKnowledgeService },
  { name: 'queries', create: createQueriesService },
  { name: 'approvals', create: createApprovalsService },
];

/** A browser's cookie jar for one site, enough for the console's two cookies. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name!);
      else this.cookies.set(name!, value.join('='));
    }
  }
  get header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  has(name: string) {
    return this.cookies.has(name);
  }
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

describe.skipIf(!NatsServerProcess.binaryAvailable() && !process.env.CI)(
  "the console on replicas of a distributed aggregator in front of separate services, sharing the node's NATS",
  () => {
    const dir = tempDir();
    let nats: NatsServerProcess;
    let services: AllInOne;
    const serving: HttpServerHandle[] = [];
    const replicas: Array<{ agg: Distributed; url: string }> = [];
    let stranger: { agg: Distributed; url: string };
    let owner: { key: string; c: Client };
    let alice: Client;
    let aliceKey: string;
    let start: (n: string, secret: string) => Promise<{ agg: Distributed; url: string }>;
    const shared = 'the-replicas-share-this-console-secret';
    let servicesConfig: ReturnType<typeof testConfig>;

    beforeAll(async () => {
      // A NATS of the node's own, with the shipped users: the services' bus (as the node), and
      // the console's shared sessions and events (as `aggregator`).
      const auth = new NatsAuthFixture({ nodes: ['console-node'], dir: dir.path });
      nats = new NatsServerProcess(await freePort(), joinPath(dir.path, 'nats'), auth);
      await nats.start();
      const onNats = { NATS_URL: nats.url };
      // The services run in their own HTTP servers; the aggregators reach them only over MCP.
      const config = testConfig(`${dir.path}/services`, {
        LORE_NODE_ID: 'console-node',
        LORE_RATE_LIMITS: 'false',
        LORE_PORT: '0',
        ...onNats,
        ...auth.env('node'),
      });
      servicesConfig = config;
      services = await startAllInOne(config, { services: SERVICES });
      const upstreams: UpstreamConfig[] = [];
      for (const s of services.services) {
        const h = await serveHttp(s.app, config, 0);
        serving.push(h);
        upstreams.push({
          name: s.name,
          url: `${h.url}/mcp`,
          kind: 'lore' as const,
          forwardAuthorization: true,
          timeoutMs: 20_000,
        });
      }
      start = async (n: string, secret: string) => {
        const cfg = testConfig(`${dir.path}/agg-${n}`, {
          LORE_PORT: '0',
          LORE_CONSOLE_SECRET: secret,
          ...onNats,
          ...auth.env('aggregator'),
        });
        const agg = await startDistributed(cfg, { upstreams, healthIntervalMs: 1000 });
        const h = await serveHttp(agg.app, cfg, 0);
        serving.push(h);
        return { agg, url: h.url };
      };
      replicas.push(await start('a', shared), await start('b', shared));
      stranger = await start('c', 'a-different-console-secret-entirely-0');

      const anon = await connectClient(appFetch(replicas[0]!.agg.app));
      const join = async (username: string) => {
        const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
          username,
          email: `${username}@example.com`,
          displayName: username,
          bio: `I am ${username}.`,
        });
        return {
          key: r.data.apiKey,
          c: await connectClient(appFetch(replicas[0]!.agg.app), { key: r.data.apiKey }),
        };
      };
      owner = await join('olivia');
      const a = await join('alice');
      alice = a.c;
      aliceKey = a.key;
      await ok(owner.c, 'updateKnowledgeSources', { file_name: 'quantum.txt', file_content: QUANTUM_TXT });
    }, 120_000);

    afterAll(async () => {
      for (const h of serving.reverse()) await h.close();
      for (const r of [...replicas, stranger]) await r?.agg.close();
      await services?.close();
      await nats?.kill();
      dir.cleanup();
    });

    const post = (base: string, path: string, jar: Jar, form: Record<string, string>, origin = base) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const get = (base: string, path: string, jar: Jar) =>
      fetch(`${base}${path}`, { redirect: 'manual', headers: { cookie: jar.header, accept: 'text/html' } });

    async function signIn(base: string, key: string) {
      const jar = new Jar();
      const form = await get(base, '/console/sign-in', jar);
      jar.take(form);
      const res = await post(base, '/console/sign-in', jar, { _csrf: csrfOf(await form.text())!, key });
      jar.take(res);
      return { jar, res };
    }

    it('refuses a key the users service does not know', async () => {
      const { res, jar } = await signIn(replicas[0]!.url, 'lore_sk_not_a_real_key_at_all_000000000000');
      expect(res.status).toBe(401);
      expect(jar.has('lore_console')).toBe(false);
    });

    it('signs in on one replica and approves on the other, as the owner, through the same tools', async () => {
      const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
      const { jar, res } = await signIn(a.url, owner.key);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/console/inbox');
      expect(jar.has('lore_console')).toBe(true);
      expect(jar.header).not.toContain(owner.key);

      const id = (
        await ok<{ query_id: string }>(alice, 'cqAskQuestion', { question: QUESTION, peers: ['olivia'] })
      ).data.query_id;
      let html = '';
      await expect
        .poll(
          async () => {
            html = await (await get(b.url, '/console/inbox', jar)).text();
            return html.includes(`id="q-${id}"`) && html.includes('error correction');
          },
          { timeout: 20_000 },
        )
        .toBe(true);
      expect(html).toContain('Signed in as <strong>@olivia</strong>');

      // The other secret's replica cannot open the session: it sends the browser to sign in.
      const foreign = await get(stranger.url, '/console/inbox', jar);
      expect(foreign.status).toBe(303);
      expect(foreign.headers.get('location')).toBe('/console/sign-in');

      const approve = await post(b.url, `/console/inbox/${id}/approve`, jar, { _csrf: csrfOf(html)! });
      expect(approve.status).toBe(303);
      expect(approve.headers.get('location')).toContain('notice=Approved');
      const listed = await ok<Record<string, { status: string; decision: { decided_by: string } }>>(
        owner.c,
        'cqListRequestedQueries',
      );
      expect(listed.data[id]).toMatchObject({
        status: 'accepted',
        decision: { decided_by: 'manual:@olivia' },
      });
      await expect
        .poll(
          async () =>
            (await ok<{ answers: unknown[] }>(alice, 'cqSummarizeAnswers', { related_question: id })).data
              .answers.length,
          { timeout: 20_000 },
        )
        .toBe(1);
    });

    it('refuses a change without the CSRF token or from another origin on any replica', async () => {
      const { jar } = await signIn(replicas[1]!.url, owner.key);
      const html = await (await get(replicas[0]!.url, '/console/conditions', jar)).text();
      const body = { sentence: 'Accept everything from anyone' };
      expect((await post(replicas[0]!.url, '/console/conditions', jar, body)).status).toBe(403);
      const foreign = await post(
        replicas[0]!.url,
        '/console/conditions',
        jar,
        { ...body, _csrf: csrfOf(html)! },
        'https://evil.example',
      );
      expect(foreign.status).toBe(403);
      const conds = await ok<{ conditions: string[] }>(owner.c, 'cqListAutoApprovalConditions');
      expect(conds.data.conditions).toEqual([]);
    });

    const refused = async (base: string, jar: Jar) => {
      const res = await get(base, '/console/inbox', jar);
      return res.status === 303 && res.headers.get('location') === '/console/sign-in';
    };
    const cookieWith = (id: string) => {
      const jar = new Jar();
      jar.take(new Response(null, { headers: { 'set-cookie': `lore_console=${id}; Path=/console` } }));
      return jar;
    };
    const sessionOf = (jar: Jar) => /lore_console=([^;]+)/.exec(jar.header)![1]!;

    it('keeps only a random id in the cookie, and refuses forged and guessed ids', async () => {
      const { jar } = await signIn(replicas[0]!.url, owner.key);
      const id = sessionOf(jar);
      expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(id, 'base64url').toString('latin1')).not.toContain('lore_sk');
      expect((await get(replicas[1]!.url, '/console/inbox', jar)).status).toBe(200);
      const flip = id.slice(0, -2) + (id.endsWith('AA') ? 'BB' : 'AA');
      for (const forged of [flip, 'A'.repeat(43), `${id}x`, owner.key, 'x'])
        expect(await refused(replicas[1]!.url, cookieWith(forged))).toBe(true);
    });

    it("gives another agent's session that agent's console only, with its own CSRF token", async () => {
      const mine = await signIn(replicas[0]!.url, owner.key);
      const hers = await signIn(replicas[1]!.url, aliceKey);
      const herPage = await (await get(replicas[0]!.url, '/console/conditions', hers.jar)).text();
      expect(herPage).toContain('Signed in as <strong>@alice</strong>');
      const myPage = await (await get(replicas[0]!.url, '/console/conditions', mine.jar)).text();
      // Her cookie with the owner's token does not act for either of them.
      const cross = await post(replicas[1]!.url, '/console/conditions', hers.jar, {
        sentence: 'Accept everything from anyone',
        _csrf: csrfOf(myPage)!,
      });
      expect(cross.status).toBe(403);
      expect(csrfOf(herPage)).not.toBe(csrfOf(myPage));
      const conds = await ok<{ conditions: string[] }>(owner.c, 'cqListAutoApprovalConditions');
      expect(conds.data.conditions).toEqual([]);
    });

    it('signs out on one replica and the cookie, replayed, is refused on the other', async () => {
      const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
      const { jar } = await signIn(a.url, owner.key);
      const copy = cookieWith(sessionOf(jar));
      const html = await (await get(b.url, '/console/inbox', jar)).text();
      const out = await post(a.url, '/console/sign-out', jar, { _csrf: csrfOf(html)! });
      expect(out.status).toBe(303);
      expect(await refused(b.url, copy)).toBe(true);
      expect(await refused(a.url, copy)).toBe(true);
    });

    it("keeps sessions through one replica's restart", async () => {
      const { jar } = await signIn(replicas[0]!.url, owner.key);
      const old = replicas[0]!;
      await old.agg.close();
      const restarted = await start('a', shared);
      replicas[0] = restarted;
      const res = await get(restarted.url, '/console/inbox', jar);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('Signed in as <strong>@olivia</strong>');
    });

    it('updates the inbox live from the bus on a replica other than the one the question went through', async () => {
      const { jar } = await signIn(replicas[1]!.url, owner.key);
      const ac = new AbortController();
      const res = await fetch(`${replicas[1]!.url}/console/inbox/events`, {
        headers: { cookie: jar.header, accept: 'text/event-stream' },
        signal: ac.signal,
      });
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const until = async (needle: string) => {
        while (!text.includes(needle)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`stream ended before ${needle}`);
          text += decoder.decode(value);
        }
      };
      await until('event: ready');
      const t0 = performance.now();
      await ok(alice, 'cqAskQuestion', {
        question: 'Which error correction codes lower logical errors?',
        peers: ['olivia'],
      });
      await until('event: inbox');
      const ms = performance.now() - t0;
      ac.abort();
      console.log(`distributed console: ask to inbox event ${ms.toFixed(0)} ms`);
      // The inbox is not polled while the bus is live: the event came from the bus, sooner than a poll.
      expect(ms).toBeLessThan(5000);
    });

    it('ends the sessions of a rotated key at once', async () => {
      const { jar } = await signIn(replicas[0]!.url, aliceKey);
      expect((await get(replicas[1]!.url, '/console/inbox', jar)).status).toBe(200);
      await ok(alice, 'agent_rotate_key');
      await expect.poll(() => refused(replicas[1]!.url, jar), { timeout: 5000 }).toBe(true);
      expect(await refused(replicas[0]!.url, jar)).toBe(true);
    });

    it('signs in on the all-in-one on the same NATS, whose sessions its node user may keep', async () => {
      const h = await serveHttp(services.app, servicesConfig, 0);
      serving.push(h);
      const { jar, res } = await signIn(h.url, owner.key);
      expect(res.status).toBe(303);
      const page = await get(h.url, '/console/inbox', jar);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Signed in as <strong>@olivia</strong>');
    });
  },
);
