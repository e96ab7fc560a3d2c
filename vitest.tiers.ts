/**
 * Which test files run in which tier, in one place. Every `*.test.ts` of the repository runs in
 * exactly one of:
 *
 * - `pnpm test`: everything not listed below (each package's vitest project);
 * - `pnpm test:slow`: the end-to-end suites that take the longest (packed tarballs installed and
 *   run, browsers, process entry points, fuzzing, protocol conformance runs, corpus ingests);
 * - `pnpm test:faults`: kill -9, NATS restarts, outages and load, one file at a time.
 *
 * apps/aggregator/test/tiers.test.ts checks that no file is in two tiers or in none.
 * Paths are relative to the repository root.
 */
export const SLOW_TESTS: readonly string[] = [
  // Packs and installs the deployable server; renders the Kubernetes manifests with kubectl.
  'apps/aggregator/test/deploy-pack.test.ts',
  'apps/aggregator/test/deploy-k8s.test.ts',
  // Chromium through playwright-core.
  'apps/aggregator/test/console.browser.test.ts',
  'apps/aggregator/test/mcp-apps.browser.test.ts',
  // Generated hostile inputs against every tool; attacks on the approval gate with hostile models.
  'apps/aggregator/test/reliability/fuzz.test.ts',
  'apps/aggregator/test/gate-adversarial.test.ts',
  // The MCP conformance suite and the Inspector (a process per call) against a started Lore.
  'apps/aggregator/test/conformance.test.ts',
  'apps/aggregator/test/inspector.test.ts',
  'apps/aggregator/test/clients-inspector.test.ts',
  // The SDK clients over stdio: the README's command, a Lore process a cell.
  'apps/aggregator/test/clients-stdio.test.ts',
  // Entry points as processes: pnpm dev, pnpm start, the lore command, `lore start` from the sources.
  'apps/aggregator/test/entry-points.test.ts',
  'apps/aggregator/test/start-process.test.ts',
  // The aggregator and the users service as processes, started in the wrong order.
  'apps/aggregator/test/start-order.test.ts',
  // A Lore process at trace level, its whole output searched for keys.
  'apps/aggregator/test/reliability/keys-in-logs.test.ts',
  'apps/aggregator/test/cli.test.ts',
  // Several Lore processes on NATS and a libSQL server: two nodes, replicas of one service.
  'apps/aggregator/test/two-nodes.test.ts',
  'apps/aggregator/test/replicas.test.ts',
  // The aggregator in front of upstream servers started as processes (hanging, failing, restarted).
  'apps/aggregator/test/distributed.test.ts',
  'apps/aggregator/test/reliability/upstream.test.ts',
  // Runs every shell command the READMEs print, as printed (some thirty processes).
  'apps/aggregator/test/readme-commands.test.ts',
  // The bundled bins started as processes, their lazy file lookups exercised.
  'apps/aggregator/test/bundle.test.ts',
  // The README's stdio command when a build is due (after a source change, never built): each case builds.
  'apps/aggregator/test/stdio-build.test.ts',
  // A PDF that inflates to a 700 MiB string, read by a parser process with the scan set aside.
  'packages/ingest/src/containment.test.ts',
  // Ingests a documentation corpus end to end.
  'apps/aggregator/test/docs-corpus.test.ts',
  // The local embedding model loaded in its thread, each surface's vectors computed in the
  // background, then searched by meaning and by words alone (two services per file).
  'packages/users/test/meaning.test.ts',
  'packages/knowledge/test/meaning.test.ts',
  'packages/docs/test/meaning.test.ts',
  'packages/knowledge/test/article-meaning.test.ts',
  'packages/queries/test/question-meaning.test.ts',
];

export const FAULT_TESTS: readonly string[] = [
  // The NATS server dies under a running process, or a cluster's stream leader is killed.
  'apps/aggregator/test/shutdown.test.ts',
  'packages/users/test/shutdown.test.ts',
  'packages/kit/src/testing/nats-cluster.test.ts',
  // A hub and three operators' leaf nats-servers, each with a Lore node; the hub is killed and restarted.
  'apps/aggregator/test/operators.test.ts',
  'apps/aggregator/test/reliability/consumer-names.test.ts',
  'apps/aggregator/test/reliability/crash.test.ts',
  'apps/aggregator/test/reliability/hostile.test.ts',
  'apps/aggregator/test/reliability/stream-tampering.test.ts',
  'apps/aggregator/test/reliability/signed-requests.test.ts',
  'apps/aggregator/test/reliability/load.test.ts',
  'apps/aggregator/test/reliability/nats-cluster.test.ts',
  'apps/aggregator/test/reliability/outage.test.ts',
  'apps/aggregator/test/reliability/readiness.test.ts',
  'apps/aggregator/test/reliability/sqld-flows.test.ts',
  'packages/knowledge/test/ingest-bomb.test.ts',
  'packages/users/test/limits-replicas.test.ts',
];

/**
 * The files of the project at `projectDir` (repository-relative, e.g. `packages/kit`) that belong
 * to `pnpm test:slow` or `pnpm test:faults`, relative to the project: what its `pnpm test` run excludes.
 */
export function otherTiers(projectDir: string): string[] {
  const prefix = `${projectDir.replace(/\/$/, '')}/`;
  return [...SLOW_TESTS, ...FAULT_TESTS]
    .filter((f) => f.startsWith(prefix))
    .map((f) => f.slice(prefix.length));
}
