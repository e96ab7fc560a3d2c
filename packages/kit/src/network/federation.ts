/**
 * A node's link to a Lore network of several operators. The operator's NATS holds Lore's own
 * users in one account and the leaf connection to the hub in another (`NETWORK`,
 * infra/nats/network.ts); the two share no subject, so nothing internal can cross. This link is
 * the one client of both: it carries across exactly what the network is for, checked on the
 * way in.
 *
 * What it carries is its caller's to say ({@link NetworkTraffic}): which events of the node's
 * stream are questions (`ask`) and which are answers (`answer`), and whom each speaks for and is
 * for. The link itself knows no service.
 *
 * Out: the node's own questions to the nodes that host their recipients, and its answers (or
 * refusals) to the asking node, read from the node's event stream with a durable consumer (one
 * for the node: several link processes share it, so each event is sent once).
 * Each is a request on `lore.net.ask|answer.<to>.<self>`; the reply is the receiving node's
 * receipt, and an event without one (the hub or the other node away) is delivered again later:
 * queued on the sender's own stream, not lost. Every few seconds the node announces itself on
 * `lore.net.dir.<self>`: its key, its agents' handles and public cards, signed with its key.
 *
 * In: the hub already restricts who may send on each subject (the sending node's account
 * alone); the link also requires the envelope to be produced and signed by the node the
 * subject names, with the key pinned for it on first contact (a change only along a rotation
 * signed by the old key, or as the local operator confirms), addressed to an agent this node
 * hosts, and within the rate each peer is allowed (nats-server 2.9 limits no message rate per
 * account, so the receiving node does). What passes is published to the local stream, where
 * the services check it again as they check every envelope from another node.
 *
 * Departures: a node that stops announcing (it left the network, or the hub dropped it) has its
 * agents removed from the local directory once it has been silent for `directoryTtlMs`; its key
 * stays pinned, so it comes back only with the same key (or a rotation signed by it).
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Subscription as BusSubscription } from '../bus/types.js';
import { buildAnnouncement, mirrorAgents, PeerRate, readAnnouncement } from './announcements.js';
import { netSubjects, parseNetSubject } from './federation-subjects.js';
import {
  type Announcement,
  type CarriedEvent,
  DIRECTORY_TTL_ANNOUNCES,
  type NetworkLinkOptions,
  type Receipt,
  type Refusal,
} from './federation-types.js';
import { admitEnvelope } from './inbound.js';
import { NodeKeyRefusedError } from './node-keys.js';
import { Outbound } from './outbound.js';

/** Announcements older than this are refused even from a node not heard since this process started. */
const ANNOUNCEMENT_MAX_AGE_MS = 10 * 60_000;
/** Link processes of one node share inbound requests (one answers each) as they share the outbox. */
const QUEUE = 'lore-network-link';

export class NetworkLink {
  /** Inbound messages refused, by reason. */
  readonly refusals: Partial<Record<Refusal, number>> = {};
  /** Inbound messages accepted, by kind. */
  readonly accepted = { ask: 0, answer: 0, dir: 0 };
  /** Keys another node announced that were refused: the operator may confirm one ({@link confirmKey}). */
  readonly refusedKeys = new Map<string, string>();
  /** Nodes whose agents left the directory after they went silent, with when they did. */
  readonly departed = new Map<string, number>();
  private readonly lastAnnouncement = new Map<string, number>();
  /** When each node's last announcement was accepted (this process's clock). */
  private readonly heardAt = new Map<string, number>();
  private readonly carried: Map<string, CarriedEvent>;
  private readonly startedAt: number;
  private readonly ttlMs: number;
  private readonly outbound: Outbound;
  private readonly rate: PeerRate;
  private readonly now: () => number;
  private readonly subs: Subscription[] = [];
  private outbox: BusSubscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private announceSoon: NodeJS.Timeout | undefined;
  private lastAt = 0;
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly o: NetworkLinkOptions,
  ) {
    this.now = o.now ?? Date.now;
    this.startedAt = this.now();
    this.carried = new Map(o.traffic.events.map((e) => [e.subject, e]));
    this.ttlMs = o.directoryTtlMs ?? DIRECTORY_TTL_ANNOUNCES * (o.announceEveryMs ?? 30_000);
    const rate = o.peerRate ?? { perMinute: 120, burst: 60 };
    this.rate = new PeerRate(rate.perMinute, rate.burst, this.now);
    this.outbound = new Outbound(nc, {
      self: o.node.id,
      carried: this.carried,
      directory: o.directory,
      log: o.log,
      receiptTimeoutMs: o.receiptTimeoutMs ?? 5_000,
      now: this.now,
    });
  }

  static async start(options: NetworkLinkOptions): Promise<NetworkLink> {
    // Loaded here: a process that is on no network never loads the NATS client for it.
    const { connect } = await import('@nats-io/transport-node');
    const nc = await connect({
      servers: options.url.split(','),
      user: options.user,
      pass: options.password,
      inboxPrefix: `_INBOX.${options.user}`,
      name: `lore-network-${options.node.id}`,
      maxReconnectAttempts: -1,
    });
    const link = new NetworkLink(nc, options);
    await link.begin();
    return link;
  }

  get nodeId(): string {
    return this.o.node.id;
  }

  private async begin(): Promise<void> {
    const self = this.nodeId;
    this.subs.push(
      this.nc.subscribe(netSubjects.dir('*'), {
        callback: (err, msg) => {
          if (!err)
            void this.onAnnouncement(msg.subject, msg.data).catch((e) => this.failed('announcement', e));
        },
      }),
    );
    for (const kind of ['ask', 'answer'] as const) {
      this.subs.push(
        this.nc.subscribe(netSubjects[kind](self, '*'), {
          queue: QUEUE,
          callback: (err, msg) => {
            if (err) return;
            void this.onEnvelope(kind, msg.subject, msg.data)
              .catch((e): Receipt => {
                this.failed(kind, e);
                return { ok: false, error: 'not stored, try again', retry: true };
              })
              .then((receipt) => msg.respond(JSON.stringify(receipt)));
          },
        }),
      );
    }
    await this.nc.flush();
    this.outbox = await this.o.bus.subscribe(
      {
        consumer: `${this.o.traffic.outbox.consumer}-${self}`,
        subjects: [this.o.traffic.outbox.filter],
        // Kept until every peer has its receipt, through an outage of days.
        maxDeliver: 1_000_000,
        redeliveryDelayMs: 1_000,
      },
      (event) => this.outbound.send(event),
    );
    await this.announce(true);
    this.timer = setInterval(
      () => void this.announce(false).catch((e) => this.failed('announce', e)),
      this.o.announceEveryMs ?? 30_000,
    );
    this.timer.unref?.();
    this.sweeper = setInterval(
      () => void this.forgetSilent().catch((e) => this.failed('directory sweep', e)),
      Math.max(50, Math.min(this.ttlMs / 4, this.o.announceEveryMs ?? 30_000)),
    );
    this.sweeper.unref?.();
  }

  private failed(what: string, err: unknown) {
    if (!this.closed) this.o.log.warn({ err: (err as Error).message, what }, 'network link');
  }

  private refuse(reason: Refusal, detail: string, from: string, retry = reason === 'rate-limited'): Receipt {
    this.refusals[reason] = (this.refusals[reason] ?? 0) + 1;
    this.o.log.warn({ from, reason, detail }, 'network message refused');
    return { ok: false, error: `${reason}: ${detail}`, retry };
  }

  /** This node's announcement: its key and the agents it hosts, signed. */
  async announcement(hello: boolean): Promise<Announcement> {
    // Strictly increasing, even within one millisecond.
    this.lastAt = Math.max(this.now(), this.lastAt + 1);
    return buildAnnouncement(this.o.directory, this.o.node, this.lastAt, hello);
  }

  async announce(hello = false): Promise<void> {
    if (this.closed) return;
    this.nc.publish(netSubjects.dir(this.nodeId), JSON.stringify(await this.announcement(hello)));
  }

  // ---- in ----------------------------------------------------------------------------------

  private async onEnvelope(kind: 'ask' | 'answer', subject: string, data: Uint8Array): Promise<Receipt> {
    const admitted = await admitEnvelope(kind, subject, data, {
      self: this.nodeId,
      carried: this.carried,
      rate: this.rate,
      maxBytes: this.o.maxBytes ?? 256 * 1024,
      directory: this.o.directory,
    });
    if (!admitted.ok) {
      // A node not heard yet (or again, after it went silent): it announces itself within a
      // period, and the sender's outbox tries again meanwhile.
      if (admitted.unheard) this.announceShortly();
      return this.refuse(admitted.reason, admitted.detail, admitted.from, admitted.retry);
    }
    // Stored once however often it comes (its id is the stream's message id; handlers dedupe on it).
    await this.o.bus.publish(admitted.envelope);
    this.accepted[kind]++;
    return { ok: true };
  }

  private async onAnnouncement(subject: string, data: Uint8Array): Promise<void> {
    const parsed = parseNetSubject(subject);
    const from = parsed?.from ?? '?';
    if (!parsed || from === this.nodeId) return;
    // Announcements share the peer's rate (in a bucket of their own) and its size limit.
    if (!this.rate.take(`dir ${from}`)) {
      this.refuse('rate-limited', `announcements from ${from}`, from);
      return;
    }
    if (data.length > (this.o.maxBytes ?? 256 * 1024)) {
      this.refuse('too-large', `${data.length} bytes`, from);
      return;
    }
    const read = readAnnouncement(data, from);
    if (!read.ok) {
      this.refuse(read.reason, read.detail, from);
      return;
    }
    const a = read.announcement;
    const last = this.lastAnnouncement.get(from) ?? 0;
    if (typeof a.at !== 'number' || a.at <= last || a.at < this.now() - ANNOUNCEMENT_MAX_AGE_MS) {
      this.refuse('stale-announcement', `at ${a.at}, last ${last}`, from);
      return;
    }
    // First contact pins the key; afterwards only a rotation signed by the pinned key moves it.
    try {
      await this.o.directory.registerNode(from, a.publicKey, {
        ...(a.rotatedFrom ? { rotatedFrom: a.rotatedFrom } : {}),
        ...(a.endorsement ? { endorsement: a.endorsement } : {}),
      });
    } catch (err) {
      if (!(err instanceof NodeKeyRefusedError)) throw err;
      // A key the local operator confirmed for this node (`lore network confirm-key`) replaces the pinned one.
      const confirmed = this.o.confirmedKeys?.()[from];
      if (confirmed?.trim() === a.publicKey.trim()) {
        await this.o.directory.replaceNodeKey(from, a.publicKey);
        this.refusedKeys.delete(from);
        this.o.log.warn({ node: from }, 'node key replaced as the local operator confirmed');
      } else {
        this.refusedKeys.set(from, a.publicKey);
        this.refuse('key-refused', err.message, from);
        return;
      }
    }
    this.lastAnnouncement.set(from, a.at);
    this.heardAt.set(from, this.now());
    // A node heard for the first time, or again after it went silent: it hears of this one at once.
    const newcomer = last === 0 || this.departed.delete(from);
    await mirrorAgents(this.o.directory, from, a.agents);
    this.accepted.dir++;
    if (a.hello || newcomer) this.announceShortly();
  }

  /** Removes from the directory the agents of every node silent for longer than the TTL. */
  async forgetSilent(): Promise<string[]> {
    if (this.closed) return [];
    const now = this.now();
    const silent = new Set<string>();
    const handles = (await this.o.directory.listHandles()).filter((h) => h.network);
    for (const h of handles) {
      // A node not heard since this process started gets the TTL from the start.
      const last = this.heardAt.get(h.node) ?? this.startedAt;
      if (now - last > this.ttlMs) silent.add(h.node);
    }
    for (const h of handles) {
      if (!silent.has(h.node)) continue;
      await this.o.directory.removeNetworkHandle(h.handle, h.node);
      await this.o.directory.removeAgentCard(h.handle);
    }
    for (const node of silent) {
      const silentMs = now - (this.heardAt.get(node) ?? this.startedAt);
      this.departed.set(node, now);
      this.heardAt.delete(node);
      this.o.log.info(
        { node, silentMs, ttlMs: this.ttlMs },
        'network node silent past the TTL: its agents leave the directory',
      );
    }
    return [...silent];
  }

  private announceSoonTimer() {
    return setTimeout(() => {
      this.announceSoon = undefined;
      void this.announce(false).catch((e) => this.failed('announce', e));
    }, 100);
  }

  private announceShortly() {
    if (!this.announceSoon && !this.closed) this.announceSoon = this.announceSoonTimer();
  }

  /**
   * The local operator accepts the key another node now announces (after checking it with that
   * node's operator): pinned in place of the old one, believed from its next announcement on.
   */
  async confirmKey(node: string, publicKey: string): Promise<void> {
    await this.o.directory.replaceNodeKey(node, publicKey);
    this.refusedKeys.delete(node);
    this.lastAnnouncement.delete(node);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    clearTimeout(this.announceSoon);
    await this.outbox?.close();
    for (const s of this.subs) s.unsubscribe();
    await this.nc.close();
  }
}
