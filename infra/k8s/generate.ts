/**
 * Writes the per-server manifests of the kustomize base (a Deployment, Service,
 * HorizontalPodAutoscaler and PodDisruptionBudget for each Lore server) and the dev overlay's
 * one-replica patch, from the table below. Everything else under infra/k8s is written by hand.
 *
 *   pnpm k8s:generate            # rewrite the files
 *   pnpm k8s:generate --check    # exit 1 when a file is not what this script writes
 *
 * The deploy-k8s test runs the check, so the files cannot drift from this table.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

export const K8S_DIR = dirname(fileURLToPath(import.meta.url));

interface Server {
  name: string;
  component: 'service' | 'aggregator' | 'network-link';
  /**
   * Requests from the measured footprint of the bundled JavaScript the image runs (`pnpm bench
   * memory`; BENCHMARKS.md, "Starting small"): one service idles under 80 MiB RSS and the
   * all-in-one stays under 140 MiB after a minute of load, so 224 Mi holds one service under load;
   * the aggregator, knowledge and docs get 256 Mi. The limits leave room for work.
   */
  resources: { requests: { cpu: string; memory: string }; limits: { cpu: string; memory: string } };
  hpa: { min: number; max: number };
}

const small = { requests: { cpu: '50m', memory: '224Mi' }, limits: { cpu: '1', memory: '512Mi' } };
const aggregator = { requests: { cpu: '50m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } };
const large = { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } };

export const SERVERS: Server[] = [
  { name: 'users', component: 'service', resources: small, hpa: { min: 2, max: 6 } },
  { name: 'queries', component: 'service', resources: small, hpa: { min: 2, max: 6 } },
  { name: 'approvals', component: 'service', resources: small, hpa: { min: 2, max: 4 } },
  // Knowledge and docs parse documents (HTML, PDF) and hold vectors while they search.
  { name: 'knowledge', component: 'service', resources: large, hpa: { min: 2, max: 6 } },
  { name: 'dens', component: 'service', resources: small, hpa: { min: 2, max: 4 } },
  { name: 'dms', component: 'service', resources: small, hpa: { min: 2, max: 4 } },
  { name: 'showcase', component: 'service', resources: small, hpa: { min: 2, max: 4 } },
  { name: 'docs', component: 'service', resources: large, hpa: { min: 2, max: 6 } },
  { name: 'aggregator', component: 'aggregator', resources: aggregator, hpa: { min: 2, max: 10 } },
];

/**
 * The node's link to a network of several operators (`lore network link`, from the aggregator's
 * image): one per node, so no autoscaler, no disruption budget and no Service (nothing calls
 * it; it serves only its probes). Its replicas are 0 until the node joins a network: set
 * LORE_NETWORK_NATS_URL and LORE_NETWORK_NATS_PASSWORD, then scale it to 1 (infra/README.md).
 */
export const NETWORK_LINK: Server = {
  name: 'network',
  component: 'network-link',
  resources: { requests: { cpu: '20m', memory: '160Mi' }, limits: { cpu: '500m', memory: '384Mi' } },
  hpa: { min: 0, max: 1 },
};

/** Every Lore container listens here (the image's LORE_PORT); each Service exposes the same port. */
export const PORT = 8080;

const labels = (s: Server) => ({
  'app.kubernetes.io/name': s.name,
  'app.kubernetes.io/component': s.component,
  'app.kubernetes.io/part-of': 'lore',
});
const selector = (s: Server) => ({ 'app.kubernetes.io/name': s.name, 'app.kubernetes.io/part-of': 'lore' });

/** A key from the `lore-secrets` Secret, if the operator put it there. */
const secretEnv = (name: string) => ({
  name,
  valueFrom: { secretKeyRef: { name: 'lore-secrets', key: name, optional: true } },
});

function deployment(s: Server) {
  // Its own NATS user (infra/nats): the password from its own Secret, shared with the NATS pods.
  // The aggregator's holds the console's shared sessions and hears the query events.
  // The link's NATS user is `link` (infra/nats/permissions.ts).
  const natsUser = s.component === 'network-link' ? 'link' : s.name;
  const nats = [
    { name: 'NATS_USER', value: natsUser },
    {
      name: 'NATS_PASSWORD',
      valueFrom: { secretKeyRef: { name: `lore-nats-${natsUser}`, key: 'password' } },
    },
  ];
  const env =
    s.component === 'service'
      ? [
          secretEnv('LORE_LLM_API_KEY'),
          secretEnv('LORE_EMBEDDINGS_API_KEY'),
          secretEnv(`LORE_${s.name.toUpperCase()}_DB_AUTH_TOKEN`),
          ...nats,
        ]
      : s.component === 'network-link'
        ? // The `network` user's password on the node's own NATS (`pnpm nats:leaf` renders that user).
          [...nats, secretEnv('LORE_NETWORK_NATS_PASSWORD')]
        : nats;
  const link = s.component === 'network-link';
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: s.name, labels: labels(s) },
    spec: {
      replicas: s.hpa.min,
      revisionHistoryLimit: 5,
      selector: { matchLabels: selector(s) },
      // One link per node: the old pod stops before the new one starts (two would be harmless:
      // they share the outbox's durable consumer and inbound requests; one is the plan).
      strategy: link
        ? { type: 'Recreate' }
        : { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: labels(s) },
        spec: {
          automountServiceAccountToken: false,
          // No FOO_SERVICE_HOST variables: configuration comes only from lore-config.
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 10001,
            runAsGroup: 10001,
            fsGroup: 10001,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selector(s) },
            },
          ],
          containers: [
            {
              name: s.name,
              image: link ? 'lore-aggregator' : `lore-${s.name}`,
              imagePullPolicy: 'IfNotPresent',
              // The aggregator's image runs `lore` (its CMD, without an entrypoint); the link is `lore network link`.
              ...(link
                ? { command: ['node', '--optimize-for-size', 'dist/bundle/main.js', 'network', 'link'] }
                : {}),
              ports: [{ name: 'http', containerPort: PORT, protocol: 'TCP' }],
              envFrom: [
                { configMapRef: { name: 'lore-config' } },
                ...(s.component === 'aggregator'
                  ? [{ configMapRef: { name: 'lore-aggregator-config' } }]
                  : []),
              ],
              ...(env.length ? { env } : {}),
              startupProbe: {
                httpGet: { path: '/healthz', port: 'http' },
                periodSeconds: 2,
                timeoutSeconds: 2,
                failureThreshold: 90,
              },
              readinessProbe: {
                httpGet: { path: '/readyz', port: 'http' },
                periodSeconds: 5,
                timeoutSeconds: 3,
                failureThreshold: 3,
              },
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'http' },
                periodSeconds: 10,
                timeoutSeconds: 3,
                failureThreshold: 3,
              },
              // Leave the endpoints before SIGTERM, so no request lands on a stopping pod.
              ...(link ? {} : { lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } } }),
              resources: s.resources,
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [
                { name: 'tmp', mountPath: '/tmp' },
                { name: 'data', mountPath: '/var/lib/lore' },
                // One node identity (id and Ed25519 signing key) for every process of this deployment.
                {
                  name: 'node-identity',
                  mountPath: '/var/lib/lore/node.json',
                  subPath: 'node.json',
                  readOnly: true,
                },
              ],
            },
          ],
          volumes: [
            { name: 'tmp', emptyDir: { sizeLimit: '256Mi' } },
            { name: 'data', emptyDir: { sizeLimit: '64Mi' } },
            { name: 'node-identity', secret: { secretName: 'lore-node', defaultMode: 0o440 } },
          ],
        },
      },
    },
  };
}

function service(s: Server) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: s.name, labels: labels(s) },
    spec: {
      type: 'ClusterIP',
      selector: selector(s),
      ports: [{ name: 'http', port: PORT, targetPort: 'http', protocol: 'TCP' }],
      // 2025-11-25 clients inside the cluster keep their session's pod (see infra/README.md).
      ...(s.component === 'aggregator'
        ? { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 3600 } } }
        : {}),
    },
  };
}

function hpa(s: Server) {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: s.name, labels: labels(s) },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: s.name },
      minReplicas: s.hpa.min,
      maxReplicas: s.hpa.max,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
    },
  };
}

function pdb(s: Server) {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: s.name, labels: labels(s) },
    spec: { maxUnavailable: 1, selector: { matchLabels: selector(s) } },
  };
}

const HEADER =
  '# Generated by infra/k8s/generate.ts from its table of servers: edit that, then `pnpm k8s:generate`.\n';
const docs = (objects: object[]) =>
  HEADER + objects.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`).join('');

/** Every generated file, by path under infra/k8s. */
export function generatedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const s of SERVERS) {
    files.set(join('base', 'servers', `${s.name}.yaml`), docs([deployment(s), service(s), hpa(s), pdb(s)]));
  }
  files.set(join('base', 'servers', `${NETWORK_LINK.name}.yaml`), docs([deployment(NETWORK_LINK)]));
  // dev: one replica of everything; the autoscalers are pinned to it. (Not `$patch: delete`:
  // the kustomize in Debian's kubectl 1.20 ignores it.)
  files.set(
    join('overlays', 'dev', 'one-replica.yaml'),
    docs(
      SERVERS.flatMap((s) => [
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: s.name }, spec: { replicas: 1 } },
        {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: s.name },
          spec: { minReplicas: 1, maxReplicas: 1 },
        },
      ]),
    ),
  );
  return files;
}

function main(argv: string[]) {
  const check = argv.includes('--check');
  const stale: string[] = [];
  for (const [path, text] of generatedFiles()) {
    const full = join(K8S_DIR, path);
    const current = existsSync(full) ? readFileSync(full, 'utf8') : undefined;
    if (current === text) continue;
    if (check) {
      stale.push(relative(process.cwd(), full));
      continue;
    }
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    process.stdout.write(`wrote ${relative(process.cwd(), full)}\n`);
  }
  if (stale.length) {
    process.stderr.write(
      `not what infra/k8s/generate.ts writes (run pnpm k8s:generate):\n  ${stale.join('\n  ')}\n`,
    );
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
