/**
 * Who may do what on Lore's NATS: one user per service, allowed exactly the subjects that
 * service uses. The single source of truth for the server configuration of every topology
 * (`pnpm dev`, the test harness, Kubernetes); `generate.ts` renders it.
 */
import {
  CONSOLE_SESSIONS_BUCKET,
  DIRECTORY_BUCKETS,
  EVENTS_STREAM as EVENTS,
  RATE_LIMIT_BUCKET,
} from '../../packages/kit/src/bus/jetstream-names.js';
import { durableName } from '../../packages/kit/src/bus/nats-setup.js';
import { AnswerShared, AnswerWithheld, QuestionAsked } from '../../packages/schema/src/queries.js';
import { SERVICE_NAMES } from '../../packages/schema/src/services.js';

/** One NATS user per service of Lore: the schema's list, so a new service gets its user. */
export const NATS_SERVICES = SERVICE_NAMES;
export type NatsService = (typeof NATS_SERVICES)[number];

/** The user a whole node connects as when every service runs in one process (`lore start` with NATS_URL). */
export const NODE_USER = 'node';
/**
 * The operator's user: JetStream administration (stream backups and restores, inspection) and
 * nothing else. It publishes no events, answers no requests and writes no bucket.
 */
export const OPS_USER = 'ops';
/**
 * The aggregator in distributed mode: the console's sessions (one KV bucket) and the query events
 * that update an open inbox. It publishes no events and answers no requests.
 */
export const AGGREGATOR_USER = 'aggregator';
/**
 * The network link run as its own process (`lore network link`, on a network of several
 * operators): it reads the node's questions and answers off its own durable consumer, publishes
 * those other nodes send it (once checked), and keeps other nodes' agents in the directory.
 */
export const LINK_USER = 'link' as const;
export type NatsUser =
  | NatsService
  | typeof NODE_USER
  | typeof OPS_USER
  | typeof AGGREGATOR_USER
  | typeof LINK_USER;

const EVENTS_STREAM = EVENTS;
/** What an open console inbox listens to, and the key rotations that end sessions. */
const CONSOLE_LISTENS = ['lore.queries.>', 'lore.users.agent.key_rotated'];

/** Requests each service sends (with their per-node forms, `<subject>.node.<id>`). */
const REQUESTS: Record<NatsService, string[]> = {
  users: ['rpc.*.stats'],
  queries: ['rpc.users.agent_traits', 'rpc.knowledge.retrieve', 'rpc.approvals.evaluate'],
  approvals: ['rpc.knowledge.source_facts', 'rpc.users.agents_connected'],
  knowledge: [],
  dens: [],
  dms: ['rpc.users.resolve_handles'],
  showcase: [],
  docs: [],
};
/**
 * The durable consumers each service keeps on the event stream, without the `-<node id>` every
 * name ends with (consumers are per node). Each service may create, read, pull from and
 * acknowledge exactly these for the node ids the configuration is rendered for
 * (`pnpm nats:config --nodes a,b`, each kustomization's LORE_NODE_ID), so no service can take
 * another's events off its consumer; consumer names are one subject token, so they can be
 * allowed exactly but not by prefix (see infra/README.md, "JetStream consumer names").
 */
export const CONSUMERS: Record<NatsService, string[]> = {
  users: [
    'users-activity-projects',
    'users-source-topics-added',
    'users-source-topics-removed',
    'users-activity-prompts',
    'users-activity-connections',
    'users-activity-den-posts',
    'users-activity-dms',
  ],
  queries: ['queries-drafter', 'queries-answers', 'queries-withheld'],
  approvals: [],
  knowledge: [],
  dens: [],
  dms: [],
  showcase: [],
  docs: [],
};

/** The network link's outbox (apps/aggregator/src/network-link.ts): the node's questions and answers. */
export const LINK_CONSUMERS = ['queries-network-outbox'];
/** What other nodes send a node, published by its link once checked (the events it carries). */
const LINK_PUBLISHES = [QuestionAsked.subject, AnswerShared.subject, AnswerWithheld.subject];

/** Every service checks API keys with the users service. */
const EVERYONE_REQUESTS = ['rpc.users.verify_key'];

/**
 * The API subjects of the durable consumers named `names` on the event stream: create (both
 * forms), info, pull and acknowledge. Each name is exact: a consumer name is one subject token,
 * so a wildcard inside it would be a literal character.
 */
export function consumerSubjects(names: readonly string[]): string[] {
  return names.flatMap((n) => [
    // The create subject carries the filter subject after the name; the older durable form does not.
    `$JS.API.CONSUMER.CREATE.${EVENTS_STREAM}.${n}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${EVENTS_STREAM}.${n}`,
    `$JS.API.CONSUMER.INFO.${EVENTS_STREAM}.${n}`,
    `$JS.API.CONSUMER.MSG.NEXT.${EVENTS_STREAM}.${n}`,
    `$JS.ACK.${EVENTS_STREAM}.${n}.>`,
  ]);
}

/**
 * A service's durable consumers: exactly its own names for the nodes `nodes`. Without node ids
 * it gets none (there is no form allowing any name).
 */
function consumerApi(user: NatsService | typeof LINK_USER, nodes?: readonly string[]): string[] {
  const names = user === LINK_USER ? LINK_CONSUMERS : CONSUMERS[user];
  return consumerSubjects(names.flatMap((c) => (nodes ?? []).map((n) => durableName(`${c}-${n}`))));
}

/**
 * JetStream API calls every service makes: reading the event stream's settings, its own
 * consumers, shared limits, reading the directory. Creating, updating, sealing, purging or
 * deleting a stream or its messages is the operator's (`ops`, `lore jetstream provision`).
 */
function jetstreamApi(user: NatsService, nodes?: readonly string[]): string[] {
  return [...streamApi(user, nodes), ...bucketApi([...DIRECTORY_BUCKETS, RATE_LIMIT_BUCKET])];
}

function streamApi(user: NatsService | typeof LINK_USER, nodes?: readonly string[]): string[] {
  return ['$JS.API.INFO', `$JS.API.STREAM.INFO.${EVENTS_STREAM}`, ...consumerApi(user, nodes)];
}

function bucketApi(buckets: string[]): string[] {
  const kvStreams = buckets.map((b) => `KV_${b}`);
  return [
    // Buckets (created by the operator's provisioning): read by direct get, listed and watched
    // through ordered consumers that are deleted afterwards.
    ...kvStreams.flatMap((s) => [
      `$JS.API.STREAM.INFO.${s}`,
      `$JS.API.STREAM.MSG.GET.${s}`,
      `$JS.API.DIRECT.GET.${s}`,
      `$JS.API.DIRECT.GET.${s}.>`,
      `$JS.API.CONSUMER.CREATE.${s}`,
      `$JS.API.CONSUMER.CREATE.${s}.>`,
      `$JS.API.CONSUMER.INFO.${s}.*`,
      `$JS.API.CONSUMER.DELETE.${s}.*`,
      `$JS.FC.${s}.>`,
    ]),
  ];
}

export interface UserPermissions {
  publish: string[];
  subscribe: string[];
}

const withNodeForms = (subjects: string[]) => subjects.flatMap((s) => [s, `${s}.node.*`]);

/**
 * The subjects one user may publish and subscribe to. `nodes`: the ids of the nodes using this
 * server, to allow each service exactly its own durable consumers (none without them).
 */
export function permissionsFor(user: NatsUser, nodes?: readonly string[]): UserPermissions {
  if (user === OPS_USER) return { publish: ['$JS.API.>'], subscribe: [`_INBOX.${OPS_USER}.>`] };
  if (user === NODE_USER) {
    // Every service, and the network link the all-in-one runs when it is on a network.
    const all = [...NATS_SERVICES, LINK_USER].map((s: NatsUser) => permissionsFor(s, nodes));
    const merge = (pick: (p: UserPermissions) => string[]) =>
      [...new Set(all.flatMap(pick))].filter((s) => !s.startsWith('_INBOX.'));
    // The all-in-one's console too: its sessions' bucket and the events of an open inbox.
    const console = permissionsFor(AGGREGATOR_USER);
    return {
      publish: [...new Set([...merge((p) => p.publish), ...console.publish])],
      subscribe: [`_INBOX.${NODE_USER}.>`, ...new Set([...merge((p) => p.subscribe), ...CONSOLE_LISTENS])],
    };
  }
  if (user === LINK_USER) {
    return {
      publish: [
        ...LINK_PUBLISHES,
        ...streamApi(LINK_USER, nodes),
        ...bucketApi([...DIRECTORY_BUCKETS]),
        // Other operators' agents, as their nodes announce them (its own node's stay the users service's).
        ...DIRECTORY_BUCKETS.map((b) => `$KV.${b}.>`),
      ],
      subscribe: [`_INBOX.${LINK_USER}.>`],
    };
  }
  if (user === AGGREGATOR_USER) {
    return {
      publish: [
        '$JS.API.INFO',
        `$JS.API.STREAM.INFO.${EVENTS_STREAM}`,
        ...bucketApi([CONSOLE_SESSIONS_BUCKET]),
        `$KV.${CONSOLE_SESSIONS_BUCKET}.>`,
      ],
      subscribe: [`_INBOX.${AGGREGATOR_USER}.>`, ...CONSOLE_LISTENS],
    };
  }
  const publish = [
    // Its own events, and nobody else's.
    `lore.${user}.>`,
    ...withNodeForms([...EVERYONE_REQUESTS, ...REQUESTS[user]]),
    ...jetstreamApi(user, nodes),
    // Rate-limit counters are written by every service: an agent's limits hold across all of them.
    `$KV.${RATE_LIMIT_BUCKET}.>`,
  ];
  if (user === 'users') {
    // The directory (handles, node keys, agent cards) is written by the users service alone among
    // the services (the network link writes other operators' agents in it: LINK_USER).
    for (const b of DIRECTORY_BUCKETS) publish.push(`$KV.${b}.>`);
  }
  return {
    publish,
    subscribe: [
      // Replies come to the user's own inbox, which no other user can read.
      `_INBOX.${user}.>`,
      // It answers its own RPC subjects, and no other service can answer (or queue on) them.
      `rpc.${user}.>`,
      // Key rotations drop cached keys at once.
      'lore.users.agent.key_rotated',
    ],
  };
}

/** Every user the configuration declares. */
export const NATS_USERS: NatsUser[] = [...NATS_SERVICES, AGGREGATOR_USER, LINK_USER, NODE_USER, OPS_USER];

/** The environment variable holding a user's password, read by nats-server from its environment. */
export const passwordVariable = (user: NatsUser) => `LORE_NATS_PASSWORD_${user.toUpperCase()}`;
