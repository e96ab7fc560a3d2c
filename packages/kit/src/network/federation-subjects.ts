/**
 * The subjects a Lore network carries between operators, and nothing else: every operator's
 * NATS account on the hub exports and imports exactly these (infra/nats/network.ts renders
 * them), scoped by node id so that the hub itself enforces who may send what to whom.
 *
 * - `lore.net.dir.<node>`: the node's signed directory announcement (its key, its agents'
 *   handles and public cards). A stream every account exports to everyone: anyone may read it,
 *   only the node's own account can publish it.
 * - `lore.net.ask.<to>.<from>`: a question (addressed or broadcast) from node `from` to node
 *   `to`. A service that `to`'s account exports to `from`'s account alone: nobody else can
 *   subscribe to it, and nobody else can send on it. The reply is the receiving node's receipt.
 * - `lore.net.answer.<to>.<from>`: an answer (or a refusal to answer) from `from` back to the
 *   asking node `to`, scoped the same way.
 *
 * A broadcast travels as one `ask` per node, not as a stream: a node that is away from the hub
 * still gets it when it returns, because the sender keeps it until that node's receipt.
 */
export const NET_PREFIX = 'lore.net';

export const netSubjects = {
  dir: (node: string) => `${NET_PREFIX}.dir.${node}`,
  ask: (to: string, from: string) => `${NET_PREFIX}.ask.${to}.${from}`,
  answer: (to: string, from: string) => `${NET_PREFIX}.answer.${to}.${from}`,
} as const;

export type NetKind = 'dir' | 'ask' | 'answer';

/** The kind and the nodes a network subject names; null for anything else. */
export function parseNetSubject(subject: string): { kind: NetKind; to?: string; from: string } | null {
  const parts = subject.split('.');
  if (parts[0] !== 'lore' || parts[1] !== 'net') return null;
  if (parts[2] === 'dir' && parts.length === 4) return { kind: 'dir', from: parts[3]! };
  if ((parts[2] === 'ask' || parts[2] === 'answer') && parts.length === 5)
    return { kind: parts[2], to: parts[3]!, from: parts[4]! };
  return null;
}

/**
 * The local user that a node's network link connects as, in the account the leaf connection
 * binds (`NETWORK`): it may publish only what its nodes send and subscribe only to what is
 * addressed to them, plus the directory and its own replies.
 */
export function networkUserPermissions(nodes: readonly string[]): { publish: string[]; subscribe: string[] } {
  return {
    publish: nodes.flatMap((n) => [netSubjects.dir(n), netSubjects.ask('*', n), netSubjects.answer('*', n)]),
    subscribe: [
      '_INBOX.network.>',
      netSubjects.dir('*'),
      ...nodes.flatMap((n) => [netSubjects.ask(n, '*'), netSubjects.answer(n, '*')]),
    ],
  };
}
