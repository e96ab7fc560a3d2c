/**
 * Crash safety over a private nats-server: a stream of writes (agent_register, agent_update) goes
 * to the users service in its own process while a durable consumer in another process applies
 * their events with `handleOnce`. Mid-stream we kill -9 the service, then the consumer, then the
 * NATS server, and restart each. Every acknowledged write must be there afterwards, and every
 * event must have been applied exactly once (at-least-once delivery, idempotent effect).
 */
import { join } from 'node:path';
import { type Database, openDatabase } from '@lore/kit/db';
import { type Client, connectClient, freePort, NatsServerProcess, tempDir } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnTs } from '../helpers.js';
import { outcomeOf, sleep, waitFor } from './support.js';

const USERS_MAIN = join(ROOT, 'packages/users/src/main.ts');
const RECORDER = join(import.meta.dirname, 'fixtures/recorder.ts');
const REGISTERED = 'lore.users.agent.registered';
const UPDATED = 'lore.users.agent.updated';
const WORKERS = 4;
const OPS_BETWEEN_FAULTS = 40;

interface Written {
  key: string;
  client: Client;
  /** Highest bio number acknowledged, and attempted (an unacknowledged write may still have landed). */
  ackedUpdate: number;
  triedUpdate: number;
  ackedUpdates: number;
  triedUpdates: number;
}

describe('crash safety: kill -9 of the service, the consumer and NATS mid-stream', () => {
  const dir = tempDir('lore-crash-');
  let nats: NatsServerProcess;
  let usersPort: number;
  let users: Spawned;
  let recorder: Spawned;
  const env = () => ({
    NATS_URL: nats.url,
    // A private server without authorization: the recorder reads the raw stream as an observer.
    LORE_NATS_INSECURE: 'true',
    LORE_NODE_ID: 'crash-test',
    LORE_LOG_LEVEL: 'info',
    LORE_RATE_LIMITS: 'false',
  });
  const startUsers = async () => {
    users = await spawnTs(
      USERS_MAIN,
      [],
      { ...env(), LORE_PORT: String(usersPort), LORE_DATA_DIR: join(dir.path, 'users') },
      /"url":"(http[^"]+)"/,
      60_000,
    );
  };
  const startRecorder = async () => {
    recorder = await spawnTs(
      RECORDER,
      [],
      { ...env(), RECORDER_DB: join(dir.path, 'recorder.db') },
      /recording (\S+)/,
      60_000,
    );
  };

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable()) throw new Error('nats-server is required for the crash tests');
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'));
    await nats.start();
    usersPort = await freePort();
    await startUsers();
    await startRecorder();
  }, 120_000);

  afterAll(async () => {
    await users?.kill();
    await recorder?.kill();
    await nats?.kill();
    dir.cleanup();
  });

  it('loses no acknowledged write and applies every event exactly once', async () => {
    const url = `http://127.0.0.1:${usersPort}/mcp`;
    const written = new Map<string, Written>();
    const triedRegister = new Set<string>();
    let acked = 0;
    let failed = 0;
    let seq = 0;
    let stop = false;
    let anon: Client | undefined;
    const faults: string[] = [];

    /** One write: a new agent, or a new bio for an agent we have. Counts acknowledgements. */
    async function writeOnce(worker: number) {
      const handles = [...written.keys()];
      if (handles.length < 8 || seq % 3 === 0) {
        const handle = `crash_${worker}_${seq++}`;
        triedRegister.add(handle);
        anon ??= await connectClient(undefined, { url });
        const raw = await anon.callTool({
          name: 'agent_register',
          arguments: { username: handle, email: `${handle}@example.com`, displayName: handle },
        });
        const o = outcomeOf(raw as never);
        if (!o.ok) throw new Error(`register: ${o.code} ${o.text}`);
        const key = (raw.structuredContent as { apiKey: string }).apiKey;
        written.set(handle, {
          key,
          client: await connectClient(undefined, { url, key }),
          ackedUpdate: 0,
          triedUpdate: 0,
          ackedUpdates: 0,
          triedUpdates: 0,
        });
      } else {
        const handle = handles[seq++ % handles.length]!;
        const w = written.get(handle)!;
        const n = ++w.triedUpdate;
        w.triedUpdates++;
        const raw = await w.client.callTool({ name: 'agent_update', arguments: { bio: `bio ${n}` } });
        const o = outcomeOf(raw as never);
        if (!o.ok) throw new Error(`update: ${o.code} ${o.text}`);
        w.ackedUpdate = Math.max(w.ackedUpdate, n);
        w.ackedUpdates++;
      }
      acked++;
    }

    const workers = Array.from({ length: WORKERS }, async (_, i) => {
      while (!stop) {
        try {
          await writeOnce(i);
        } catch {
          failed++;
          anon = undefined;
          await sleep(100);
        }
      }
    });
    const afterMore = async (n: number) => {
      const target = acked + n;
      await waitFor(
        `${n} more acknowledged writes`,
        async () => acked,
        (a) => a >= target,
        60_000,
        20,
      );
    };

    try {
      // 1. The service dies mid-stream, between writes and their relay to NATS.
      await afterMore(OPS_BETWEEN_FAULTS);
      await users.kill('SIGKILL');
      faults.push(`kill -9 users service after ${acked} acknowledged writes`);
      await sleep(300);
      await startUsers();
      await afterMore(OPS_BETWEEN_FAULTS);
      // 2. The consumer dies mid-stream, with events delivered but not yet acknowledged.
      await recorder.kill('SIGKILL');
      faults.push(`kill -9 consumer after ${acked} acknowledged writes`);
      await afterMore(OPS_BETWEEN_FAULTS / 2);
      await startRecorder();
      await afterMore(OPS_BETWEEN_FAULTS / 2);
      // 3. NATS dies mid-stream and comes back on the same port with the same store.
      await nats.kill();
      faults.push(`kill -9 nats-server after ${acked} acknowledged writes`);
      await sleep(1000);
      await nats.start();
      await afterMore(OPS_BETWEEN_FAULTS);
    } finally {
      stop = true;
      await Promise.all(workers);
    }

    // Every acknowledged write is there.
    const profiles = await Promise.all(
      [...written].map(async ([handle, w]) => {
        const raw = await w.client.callTool({ name: 'agent_profile', arguments: { username: handle } });
        const o = outcomeOf(raw as never);
        expect(o.ok, `${handle}: ${o.text}`).toBe(true);
        const bio = (raw.structuredContent as { agent: { bio: string } }).agent.bio;
        const n = bio ? Number(bio.replace('bio ', '')) : 0;
        return { handle, n, w };
      }),
    );
    for (const p of profiles) {
      expect(p.n, `${p.handle}: bio ${p.n}, acknowledged ${p.w.ackedUpdate}`).toBeGreaterThanOrEqual(
        p.w.ackedUpdate,
      );
      expect(p.n).toBeLessThanOrEqual(p.w.triedUpdate);
    }

    // Every event reaches the durable consumer; its effect is applied once per event.
    const db: Database = await openDatabase({ url: `file:${join(dir.path, 'recorder.db')}`, schema: {} });
    const effects = async () => {
      const r = await db.$client.execute('select handle, subject, applied from effects');
      return new Map(r.rows.map((row) => [`${row.handle} ${row.subject}`, Number(row.applied)]));
    };
    const t0 = performance.now();
    const converged = await waitFor(
      'every acknowledged write’s events at the consumer',
      effects,
      (e) =>
        [...written].every(
          ([h, w]) =>
            (e.get(`${h} ${REGISTERED}`) ?? 0) >= 1 && (e.get(`${h} ${UPDATED}`) ?? 0) >= w.ackedUpdates,
        ),
      90_000,
      250,
    );
    const convergeMs = Math.round(performance.now() - t0);
    for (const [h, w] of written) {
      expect(converged.get(`${h} ${REGISTERED}`), `${h} registered applied once`).toBe(1);
      const updates = converged.get(`${h} ${UPDATED}`) ?? 0;
      expect(
        updates,
        `${h}: ${updates} update effects, ${w.ackedUpdates} acknowledged, ${w.triedUpdates} tried`,
      ).toBeGreaterThanOrEqual(w.ackedUpdates);
      expect(updates).toBeLessThanOrEqual(w.triedUpdates);
    }
    for (const key of converged.keys()) {
      const [h, subject] = key.split(' ');
      if (subject === REGISTERED) {
        expect(triedRegister.has(h!), `an effect for ${h}, which nobody registered`).toBe(true);
        expect(converged.get(key)).toBe(1);
      }
    }
    const d = await db.$client.execute(
      'select count(*) as total, count(distinct event_id) as distinct_ids from deliveries',
    );
    const inbox = await db.$client.execute(
      "select count(*) as n from lore_inbox where consumer = 'reliability-recorder'",
    );
    const total = Number(d.rows[0]!.total);
    const distinct = Number(d.rows[0]!.distinct_ids);
    expect(Number(inbox.rows[0]!.n)).toBe(distinct);
    db.$client.close();
    console.info(
      [
        'crash safety:',
        ...faults.map((f) => `  fault: ${f}`),
        `  writes acknowledged ${acked}, failed during faults ${failed}, agents ${written.size}`,
        `  events delivered ${total}, distinct ${distinct}, duplicates ${total - distinct} (applied once each)`,
        `  consumer caught up ${convergeMs} ms after the stream stopped`,
      ].join('\n'),
    );
    expect(faults).toHaveLength(3);
  }, 300_000);

  it('leaves the handle of a registration killed before it committed free to register again', async () => {
    const url = `http://127.0.0.1:${usersPort}/mcp`;
    const anon = await connectClient(undefined, { url });
    const handles = Array.from({ length: 40 }, (_, i) => `orphan_${i}`);
    // Forty registrations at once: handles are claimed on the network concurrently, while the
    // rows commit one transaction at a time, so a kill lands between claim and commit for some.
    const inFlight = handles.map((h) =>
      anon
        .callTool({
          name: 'agent_register',
          arguments: { username: h, email: `${h}@example.com`, displayName: h },
        })
        .then((r) => outcomeOf(r as never).ok)
        .catch(() => false),
    );
    await sleep(150);
    await users.kill('SIGKILL');
    const acked = await Promise.all(inFlight);
    await startUsers();
    const probe = await connectClient(undefined, { url });
    const outcomes: string[] = [];
    for (const [i, h] of handles.entries()) {
      const r = outcomeOf(
        (await probe.callTool({
          name: 'agent_register',
          arguments: { username: h, email: `${h}.again@example.com`, displayName: h },
        })) as never,
      );
      // Registered before the kill: the handle is taken (409). Never registered: it must be free now.
      outcomes.push(`${h}: ${acked[i] ? 'acknowledged' : 'lost'} → ${r.ok ? 'registered' : r.code}`);
      if (acked[i]) expect(r.code, outcomes.at(-1)).toBe(409);
    }
    const orphans = outcomes.filter((o) => o.includes('lost') && o.endsWith('409'));
    // A 409 for a lost registration is fine only when its row did commit before the kill.
    const stale: string[] = [];
    for (const o of orphans) {
      const h = o.split(':')[0]!;
      const someone = await connectClient(undefined, { url, key: await registerFresh(probe, `probe_${h}`) });
      const p = outcomeOf(
        (await someone.callTool({ name: 'agent_profile', arguments: { username: h } })) as never,
      );
      if (p.code === 404) stale.push(h);
    }
    console.info(
      `registrations killed mid-flight: ${acked.filter(Boolean).length} acknowledged, ${acked.filter((a) => !a).length} lost, ${stale.length} handles left claimed by no agent`,
    );
    expect(stale, 'handles claimed on the network by an agent that was never stored').toEqual([]);
  }, 120_000);
});

async function registerFresh(client: Client, handle: string): Promise<string> {
  const raw = await client.callTool({
    name: 'agent_register',
    arguments: { username: handle, email: `${handle}@example.com`, displayName: handle },
  });
  const o = outcomeOf(raw as never);
  if (!o.ok) throw new Error(`${handle}: ${o.text}`);
  return (raw.structuredContent as { apiKey: string }).apiKey;
}
