// Raises every JetStream stream on NATS_URL to the number of replicas given as the first
// argument (default 3): Lore's event stream, the network directory's KV buckets, and anything
// else a service created. Services create their streams with one replica, which a single
// server loses with its disk; on a clustered NATS this makes each survive the loss of a
// server. Idempotent; exits 1 when a stream could not be changed. Runs with any Lore image
// (its node_modules holds the NATS client): node /app/ops/jetstream-replicas.mjs 3
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

const replicas = Number(process.argv[2] ?? 3);
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) {
  console.error(`replicas must be 1 to 5, not ${process.argv[2]}`);
  process.exit(2);
}
const nc = await connect({
  servers: (process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(','),
  ...(process.env.NATS_USER
    ? {
        user: process.env.NATS_USER,
        pass: process.env.NATS_PASSWORD,
        inboxPrefix: `_INBOX.${process.env.NATS_USER}`,
      }
    : {}),
  name: 'lore-jetstream-replicas',
});
const jsm = await jetstreamManager(nc);
let failed = 0;
for await (const si of jsm.streams.list()) {
  const { name } = si.config;
  const current = si.config.num_replicas || 1;
  if (current >= replicas) {
    console.log(`${name}: ${current} replicas`);
    continue;
  }
  try {
    await jsm.streams.update(name, { num_replicas: replicas });
    console.log(`${name}: ${current} -> ${replicas} replicas`);
  } catch (err) {
    failed++;
    console.error(`${name}: could not go to ${replicas} replicas: ${err.message}`);
  }
}
await nc.close();
process.exit(failed ? 1 : 0);
