/**
 * One Lore node for the broadcast benchmark, in its own process: the all-in-one catalog
 * (startAllInOne, as `lore start` runs it) served over HTTP. Configured by the environment
 * (LORE_DATA_DIR, LORE_NODE_ID, NATS_URL, LORE_PORT). Prints `Lore is running at <url>/mcp`.
 * SIGUSR1/SIGUSR2 start and write a CPU profile (into BENCH_CPU_PROF).
 */
import { AggregatorConfigSchema, startAllInOne } from '@lore/aggregator';
import { createDirectory, loadConfig, serveHttp } from '@lore/kit';
import { createBus, natsAccess } from '@lore/kit/bus';
import { startCpuProfile } from '../tools/cpu-profile.js';

const config = loadConfig(process.env, AggregatorConfigSchema);
const bus = await createBus({
  natsUrl: config.NATS_URL,
  name: `lore-${config.LORE_NODE_ID}`,
  ...natsAccess(config, (m) => process.stderr.write(`${m}\n`)),
});
const directory = await createDirectory(bus);
const lore = await startAllInOne(config, { bus, directory });
const http = await serveHttp(lore.app, config);
process.stderr.write(`Lore is running at ${http.url}/mcp (node ${lore.nodeId})\n`);

const stop = () => {
  void http
    .close()
    .then(() => lore.close())
    .then(() => bus.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
// A CPU profile of a window: SIGUSR1 starts it, SIGUSR2 writes <BENCH_CPU_PROF>/node-<id>.cpuprofile.
let profiling: Awaited<ReturnType<typeof startCpuProfile>> | undefined;
process.on('SIGUSR1', () => {
  void startCpuProfile().then((p) => {
    profiling = p;
  });
});
process.on('SIGUSR2', () => {
  const p = profiling;
  profiling = undefined;
  void p?.(process.env.BENCH_CPU_PROF ?? '.', `node-${lore.nodeId}`).then((f) =>
    process.stderr.write(`profile written ${f}\n`),
  );
});
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
