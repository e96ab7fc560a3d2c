/**
 * The Kubernetes manifests under infra/k8s: every overlay renders with `kubectl kustomize`;
 * every object validates against the Kubernetes schemas (kubernetes-models validators) and
 * has no field those types do not know (TypeScript's excess-property check against the same
 * models' types); every Lore server has its Deployment, Service and probes; every environment
 * variable name a Lore container gets exists in AggregatorConfigSchema (the kit's base and every
 * service's settings); every reference (ConfigMaps, Services, the aggregator's LORE_SERVICES,
 * the database URLs) points at something that is there; each NATS auth.conf is rendered for the
 * LORE_NODE_ID its overlay sets; dev is one replica of everything and prod at least two.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@lore/schema';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { generatedFiles, K8S_DIR } from '../../../infra/k8s/generate.js';
import { renderAuth } from '../../../infra/nats/generate.js';
import { AggregatorConfigSchema } from '../src/config.js';

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are plain JSON, walked by hand.
type Obj = Record<string, any>;

/** Each kind Lore deploys: its validator and the TypeScript type (module, name) of its model. */
const KINDS: Record<string, { model: new (o: Obj) => { validate(): void }; type: [string, string] }> = {
  'v1/Namespace': { model: Namespace, type: ['kubernetes-models/v1/Namespace', 'INamespace'] },
  'v1/ConfigMap': { model: ConfigMap, type: ['kubernetes-models/v1/ConfigMap', 'IConfigMap'] },
  'v1/Service': { model: Service, type: ['kubernetes-models/v1/Service', 'IService'] },
  'apps/v1/Deployment': { model: Deployment, type: ['kubernetes-models/apps/v1/Deployment', 'IDeployment'] },
  'apps/v1/StatefulSet': {
    model: StatefulSet,
    type: ['kubernetes-models/apps/v1/StatefulSet', 'IStatefulSet'],
  },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    model: HorizontalPodAutoscaler,
    type: ['kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler', 'IHorizontalPodAutoscaler'],
  },
  'batch/v1/CronJob': { model: CronJob, type: ['kubernetes-models/batch/v1/CronJob', 'ICronJob'] },
  'batch/v1/Job': { model: Job, type: ['kubernetes-models/batch/v1/Job', 'IJob'] },
  'networking.k8s.io/v1/Ingress': {
    model: Ingress,
    type: ['kubernetes-models/networking.k8s.io/v1/Ingress', 'IIngress'],
  },
  'networking.k8s.io/v1/NetworkPolicy': {
    model: NetworkPolicy,
    type: ['kubernetes-models/networking.k8s.io/v1/NetworkPolicy', 'INetworkPolicy'],
  },
  'policy/v1/PodDisruptionBudget': {
    model: PodDisruptionBudget,
    type: ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'],
  },
};

const OVERLAYS = ['base', 'overlays/dev', 'overlays/prod'] as const;
const SERVERS = [...SERVICE_NAMES, 'aggregator'] as const;
const CONFIG_NAMES = new Set(Object.keys(AggregatorConfigSchema.shape));
/** Secrets the operator creates (infra/README.md); everything else referenced must be rendered. */
const OPERATOR_SECRETS = new Set([
  'lore-node',
  'lore-secrets',
  'lore-tls',
  // One per NATS user (infra/nats/permissions.ts), read by that service and by the NATS pods.
  ...[
    'users',
    'queries',
    'approvals',
    'knowledge',
    'dens',
    'dms',
    'showcase',
    'docs',
    'aggregator',
    'link',
    'node',
    'ops',
  ].map((u) => `lore-nats-${u}`),
]);
const ROOT = join(K8S_DIR, '..', '..');

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const haveKubectl = kubectl.status === 0;
if (!haveKubectl && process.env.CI) {
  throw new Error(
    `kubectl is required under CI (.ci/run installs Debian's kubernetes-client): ${kubectl.error ?? kubectl.stderr}`,
  );
}
if (!haveKubectl) console.warn('kubectl is not installed here: the Kubernetes rendering tests are skipped');

function render(dir: string): Obj[] {
  const r = spawnSync('kubectl', ['kustomize', join(K8S_DIR, dir)], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${r.stderr}`);
  const docs = parseAllDocuments(r.stdout);
  const out: Obj[] = [];
  for (const d of docs) {
    if (d.errors.length) throw new Error(`${dir}: ${d.errors.map((e) => e.message).join('; ')}`);
    const js = d.toJS() as Obj | null;
    if (js) out.push(js);
  }
  return out;
}

const rendered = new Map<string, Obj[]>();
const objects = (overlay: string) => {
  let r = rendered.get(overlay);
  if (!r) {
    r = render(overlay);
    rendered.set(overlay, r);
  }
  return r;
};
const find = (objs: Obj[], kind: string, name: string) =>
  objs.find((o) => o.kind === kind && o.metadata?.name === name);
/** A generated ConfigMap by its name before kustomize added the content hash. */
const configMap = (objs: Obj[], name: string) =>
  objs.find((o) => o.kind === 'ConfigMap' && new RegExp(`^${name}(-[a-z0-9]{10})?$`).test(o.metadata.name));

interface PodOwner {
  owner: Obj;
  pod: Obj;
}
function podSpecs(objs: Obj[]): PodOwner[] {
  return objs.flatMap((o): PodOwner[] => {
    if (o.kind === 'Deployment' || o.kind === 'StatefulSet') return [{ owner: o, pod: o.spec.template.spec }];
    if (o.kind === 'CronJob') return [{ owner: o, pod: o.spec.jobTemplate.spec.template.spec }];
    if (o.kind === 'Job') return [{ owner: o, pod: o.spec.template.spec }];
    return [];
  });
}
const isLoreImage = (image: string) => /(^|\/)lore-[a-z]+(:|$)/.test(image);

/** TypeScript's excess-property check over every object, typed by its kubernetes-models interface. */
function unknownFields(objs: Obj[]): string[] {
  const imports = new Map<string, string>();
  const lines: string[] = [];
  objs.forEach((o, i) => {
    const [mod, name] = KINDS[`${o.apiVersion}/${o.kind}`]!.type;
    imports.set(name, mod);
    lines.push(`export const o${i}: ${name} = ${JSON.stringify(o)};`);
  });
  const header = [...imports].map(([name, mod]) => `import type { ${name} } from '${mod}';`);
  const text = [...header, ...lines].join('\n');
  const file = join(ROOT, 'apps', 'aggregator', 'test', '__k8s_types__.ts');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name === file ? ts.createSourceFile(name, text, lang) : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const o = objs[line - header.length];
    const what = o ? `${o.kind}/${o.metadata?.name}` : d.file?.fileName;
    return `${what}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe.skipIf(!haveKubectl)('Kubernetes manifests', () => {
  it('are what infra/k8s/generate.ts writes', () => {
    for (const [path, text] of generatedFiles())
      expect(readFileSync(join(K8S_DIR, path), 'utf8'), path).toBe(text);
  });

  for (const overlay of OVERLAYS) {
    describe(overlay, () => {
      it('renders with kubectl kustomize, and every object validates against the Kubernetes schemas', () => {
        const objs = objects(overlay);
        expect(objs.length).toBeGreaterThan(40);
        const problems: string[] = [];
        for (const o of objs) {
          const kind = KINDS[`${o.apiVersion}/${o.kind}`];
          if (!kind) {
            problems.push(`${o.apiVersion}/${o.kind} ${o.metadata?.name}: no validator for this kind`);
            continue;
          }
          try {
            new kind.model(o).validate();
          } catch (err) {
            problems.push(`${o.kind}/${o.metadata?.name}: ${(err as Error).message}`);
          }
          if (o.kind !== 'Namespace' && o.metadata?.namespace !== 'lore')
            problems.push(`${o.kind}/${o.metadata?.name}: namespace ${o.metadata?.namespace}, not lore`);
        }
        expect(problems).toEqual([]);
      });

      it('has no field the Kubernetes types do not know (no typos)', () => {
        expect(unknownFields(objects(overlay))).toEqual([]);
      }, 60_000);

      it('has one network link, off until the node joins a network of several operators', () => {
        const objs = objects(overlay);
        const link = find(objs, 'Deployment', 'network')!;
        expect(link.spec.replicas).toBe(0);
        // Exactly one at a time: the old pod stops before the new one starts.
        expect(link.spec.strategy).toEqual({ type: 'Recreate' });
        const c = link.spec.template.spec.containers[0];
        expect(c.image).toMatch(/(^|\/)lore-aggregator(:|$)/);
        expect(c.command.slice(-3)).toEqual(['dist/bundle/main.js', 'network', 'link']);
        expect(c.env).toEqual(
          expect.arrayContaining([
            { name: 'NATS_USER', value: 'link' },
            expect.objectContaining({ name: 'LORE_NETWORK_NATS_PASSWORD' }),
          ]),
        );
        expect(c.readinessProbe.httpGet.path).toBe('/readyz');
        for (const kind of ['Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget'])
          expect(find(objs, kind, 'network'), kind).toBeUndefined();
      });

      it('gives every Lore server its Deployment, Service, probes, limits and a locked-down pod', () => {
        const objs = objects(overlay);
        for (const name of SERVERS) {
          const dep = find(objs, 'Deployment', name);
          expect(dep, `Deployment ${name}`).toBeDefined();
          const pod = dep!.spec.template.spec;
          const labels = dep!.spec.template.metadata.labels;
          for (const [k, v] of Object.entries(dep!.spec.selector.matchLabels)) expect(labels[k]).toBe(v);
          const c = pod.containers.find((x: Obj) => x.name === name);
          expect(c, `container ${name}`).toBeDefined();
          expect(c.image).toMatch(new RegExp(`(^|/)lore-${name}(:|$)`));
          const http = c.ports.find((p: Obj) => p.name === 'http');
          expect(http?.containerPort).toBe(8080);
          expect(c.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
          expect(c.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
          expect(c.startupProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
          for (const k of ['requests', 'limits']) {
            expect(c.resources?.[k]?.cpu, `${name} ${k}.cpu`).toBeTruthy();
            expect(c.resources?.[k]?.memory, `${name} ${k}.memory`).toBeTruthy();
          }
          expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
          expect(c.securityContext).toMatchObject({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          });
          const tmp = c.volumeMounts.find((m: Obj) => m.mountPath === '/tmp');
          expect(pod.volumes.find((v: Obj) => v.name === tmp?.name)?.emptyDir).toBeDefined();
          const identity = c.volumeMounts.find((m: Obj) => m.mountPath === '/var/lib/lore/node.json');
          expect(pod.volumes.find((v: Obj) => v.name === identity?.name)?.secret?.secretName).toBe(
            'lore-node',
          );

          const svc = find(objs, 'Service', name);
          expect(svc, `Service ${name}`).toBeDefined();
          for (const [k, v] of Object.entries(svc!.spec.selector)) expect(labels[k]).toBe(v);
          expect(svc!.spec.ports).toContainEqual(expect.objectContaining({ port: 8080, targetPort: 'http' }));

          const hpa = find(objs, 'HorizontalPodAutoscaler', name);
          expect(hpa?.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name });
          const pdb = find(objs, 'PodDisruptionBudget', name);
          for (const [k, v] of Object.entries(pdb!.spec.selector.matchLabels)) expect(labels[k]).toBe(v);
        }
      });

      it("names only AggregatorConfigSchema's variables in Lore containers, and only keys that exist", () => {
        const objs = objects(overlay);
        const seen = new Set<string>();
        const problems: string[] = [];
        for (const { owner, pod } of podSpecs(objs)) {
          for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
            if (!isLoreImage(c.image)) continue;
            const where = `${owner.kind}/${owner.metadata.name}/${c.name}`;
            for (const e of c.env ?? []) {
              seen.add(e.name);
              if (!CONFIG_NAMES.has(e.name))
                problems.push(`${where}: env ${e.name} is not in AggregatorConfigSchema`);
              const sk = e.valueFrom?.secretKeyRef;
              // A NATS password is required, from the user's own Secret; other secrets are optional, keyed by name.
              const natsPassword =
                e.name === 'NATS_PASSWORD' && sk?.name.startsWith('lore-nats-') && sk.key === 'password';
              if (
                sk &&
                !(
                  OPERATOR_SECRETS.has(sk.name) &&
                  (natsPassword || (sk.key === e.name && sk.optional === true))
                )
              )
                problems.push(`${where}: ${e.name} from secret ${sk.name}/${sk.key}`);
              if (
                natsPassword &&
                sk?.name !==
                  `lore-nats-${c.env?.find((v: { name: string; value?: string }) => v.name === 'NATS_USER')?.value}`
              )
                problems.push(`${where}: NATS_PASSWORD is not from the Secret of its NATS_USER`);
              const ck = e.valueFrom?.configMapKeyRef;
              if (ck) {
                const cm = objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name === ck.name);
                if (!cm?.data?.[ck.key])
                  problems.push(`${where}: ${e.name} from missing ${ck.name}/${ck.key}`);
              }
            }
            for (const ef of c.envFrom ?? []) {
              const ref = ef.configMapRef?.name;
              const cm = objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name === ref);
              if (!cm) {
                problems.push(`${where}: envFrom ${JSON.stringify(ef)} is not a rendered ConfigMap`);
                continue;
              }
              for (const key of Object.keys(cm.data ?? {})) {
                seen.add(key);
                if (!CONFIG_NAMES.has(key))
                  problems.push(`${where}: ${ref} sets ${key}, not in AggregatorConfigSchema`);
              }
            }
          }
          for (const v of pod.volumes ?? []) {
            const cmName = v.configMap?.name;
            if (cmName && !objs.some((o) => o.kind === 'ConfigMap' && o.metadata.name === cmName))
              problems.push(
                `${owner.kind}/${owner.metadata.name}: volume ${v.name} names missing ConfigMap ${cmName}`,
              );
            const secret = v.secret?.secretName;
            if (secret && !OPERATOR_SECRETS.has(secret))
              problems.push(
                `${owner.kind}/${owner.metadata.name}: volume ${v.name} names unknown Secret ${secret}`,
              );
          }
        }
        expect(problems).toEqual([]);
        for (const must of ['LORE_HOST', 'NATS_URL', 'LORE_NODE_ID', 'LORE_SERVICES', 'LORE_LLM_API_KEY'])
          expect(seen.has(must), must).toBe(true);
        for (const s of SERVICE_NAMES) {
          expect(seen.has(`LORE_${s.toUpperCase()}_DB_URL`)).toBe(true);
          expect(seen.has(`LORE_${s.toUpperCase()}_DB_AUTH_TOKEN`)).toBe(true);
        }
      });

      it('points the aggregator at every service, each service at its own database, all at NATS', () => {
        const objs = objects(overlay);
        const entries = String(configMap(objs, 'lore-aggregator-config')?.data?.LORE_SERVICES ?? '')
          .split(',')
          .map((e) => e.split('='));
        expect(entries.map(([n]) => n).sort()).toEqual([...SERVICE_NAMES].sort());
        for (const [name, url] of entries) {
          const u = new URL(url!);
          expect(u.pathname).toBe('/mcp');
          const svc = find(objs, 'Service', u.hostname);
          expect(svc, `Service ${u.hostname} for ${name}`).toBeDefined();
          expect(svc!.spec.selector['app.kubernetes.io/name']).toBe(name);
          expect(svc!.spec.ports.map((p: Obj) => p.port)).toContain(Number(u.port));
        }

        const config = configMap(objs, 'lore-config')!.data as Record<string, string>;
        expect(config.LORE_HOST).toBe('0.0.0.0');
        const sqld = find(objs, 'StatefulSet', 'sqld')!;
        const ensure = sqld.spec.template.spec.containers.find((c: Obj) => c.name === 'ensure-databases');
        const databases = new Set<string>();
        for (const s of SERVICE_NAMES) {
          const u = new URL(config[`LORE_${s.toUpperCase()}_DB_URL`]!);
          const [db, namespace] = u.hostname.split('.');
          databases.add(db!);
          expect(namespace).toBe('lore');
          const svc = find(objs, 'Service', db!);
          expect(svc?.spec.selector['app.kubernetes.io/name'], `Service ${db}`).toBe('sqld');
          expect(svc!.spec.ports.map((p: Obj) => p.port)).toContain(Number(u.port));
          expect(ensure.args).toContain(db);
        }
        expect(databases.size).toBe(SERVICE_NAMES.length);

        // One Service (nats), or every server of the StatefulSet by its stable name (nats-0.nats-headless.lore).
        const servers = config.NATS_URL!.split(',').map((u) => new URL(u.replace(/^nats:/, 'http:')));
        const natsSet = find(objs, 'StatefulSet', 'nats')!;
        expect(servers.length).toBe(natsSet.spec.replicas);
        expect(Number(config.LORE_NATS_REPLICAS)).toBe(servers.length);
        for (const nats of servers) {
          const [host, service] = nats.hostname.split('.');
          const pod = /^(.+)-(\d+)$/.exec(host!);
          if (service) {
            expect(pod?.[1], nats.hostname).toBe('nats');
            expect(Number(pod![2])).toBeLessThan(natsSet.spec.replicas);
            expect(service).toBe(natsSet.spec.serviceName);
          }
          expect(find(objs, 'Service', service ?? host!)?.spec.ports.map((p: Obj) => p.port)).toContain(
            Number(nats.port),
          );
        }
        // The NATS servers' users allow each service exactly its durable consumers of the node
        // id these servers run as (`pnpm nats:config` renders it from the kustomization).
        const natsConfig = configMap(objs, 'nats-config')!.data as Record<string, string>;
        expect(natsConfig['nats.conf']).toMatch(/include "?auth\.conf"?/);
        expect(config.LORE_NODE_ID).toMatch(/^lore-/);
        expect(natsConfig['auth.conf']).toBe(renderAuth([config.LORE_NODE_ID!]));
        const ingress = find(objs, 'Ingress', 'aggregator')!;
        const backend = ingress.spec.rules[0].http.paths[0].backend.service;
        expect(backend.name).toBe('aggregator');
        expect(find(objs, 'Service', 'aggregator')!.spec.ports.map((p: Obj) => p.name)).toContain(
          backend.port.name,
        );
      });
    });
  }

  it('dev: one replica of everything, one NATS server without a cluster', () => {
    const objs = objects('overlays/dev');
    for (const name of SERVERS) {
      expect(find(objs, 'Deployment', name)?.spec.replicas, name).toBe(1);
      expect(find(objs, 'HorizontalPodAutoscaler', name)?.spec.maxReplicas, name).toBe(1);
    }
    expect(find(objs, 'StatefulSet', 'nats')?.spec.replicas).toBe(1);
    expect(configMap(objs, 'nats-config')!.data['nats.conf']).not.toMatch(/routes/);
    // One copy of each stream: the provisioning reads LORE_NATS_REPLICAS from lore-config.
    expect(configMap(objs, 'lore-config')!.data.LORE_NATS_REPLICAS).toBe('1');
    expect(find(objs, 'Job', 'jetstream-provision')).toBeDefined();
  });

  it('prod: at least two replicas of every server, three NATS servers routed together, streams replicated', () => {
    const objs = objects('overlays/prod');
    for (const name of SERVERS) {
      expect(find(objs, 'Deployment', name)?.spec.replicas, name).toBeGreaterThanOrEqual(2);
      expect(find(objs, 'HorizontalPodAutoscaler', name)?.spec.minReplicas, name).toBeGreaterThanOrEqual(2);
      expect(find(objs, 'PodDisruptionBudget', name)?.spec.maxUnavailable, name).toBe(1);
    }
    const nats = find(objs, 'StatefulSet', 'nats')!;
    expect(nats.spec.replicas).toBe(3);
    const conf = configMap(objs, 'nats-config')!.data['nats.conf'] as string;
    for (let i = 0; i < 3; i++) expect(conf).toContain(`nats://nats-${i}.${nats.spec.serviceName}:6222`);
    expect(conf).toMatch(/jetstream\s*\{/);
    expect(configMap(objs, 'lore-config')!.data.LORE_NATS_REPLICAS).toBe('3');
    // The operator provisions the stream and buckets (as ops) at deploy and every five minutes.
    const provision = ['node', '/app/dist/bundle/main.js', 'jetstream', 'provision'];
    const job = find(objs, 'Job', 'jetstream-provision')!;
    const cron = find(objs, 'CronJob', 'jetstream-provision')!;
    expect(cron.spec.suspend).toBeFalsy();
    for (const pod of [job.spec.template.spec, cron.spec.jobTemplate.spec.template.spec]) {
      expect(pod.containers[0].command).toEqual(provision);
      expect(pod.containers[0].env).toEqual(
        expect.arrayContaining([
          { name: 'NATS_USER', value: 'ops' },
          expect.objectContaining({ name: 'LORE_NATS_REPLICAS' }),
        ]),
      );
    }
    for (const o of objs.filter((x) => x.kind === 'Deployment'))
      expect(o.spec.template.spec.containers[0].image).toMatch(/:\d+\.\d+\.\d+$/);
  });
});
