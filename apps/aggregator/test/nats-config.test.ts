import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check, kustomizations, REPO_DIR, renderAuth, renderedFiles } from '../../../infra/nats/generate.js';
import { NATS_SERVICES, permissionsFor } from '../../../infra/nats/permissions.js';

describe('the shipped NATS configuration', () => {
  it.each(Object.keys(renderedFiles()))('%s is what pnpm nats:config renders', (file) => {
    expect(readFileSync(`${REPO_DIR}${file}`, 'utf8')).toBe(renderedFiles()[file]);
  });

  it('renders each kustomization’s auth.conf for the LORE_NODE_ID the same kustomization sets', () => {
    const k8s = kustomizations(join(REPO_DIR, 'infra/k8s'));
    expect(k8s.map((k) => [k.dir, k.nodeId, k.authConf])).toEqual([
      ['base', 'lore-k8s', 'base/nats/auth.conf'],
      ['overlays/dev', 'lore-dev', 'overlays/dev/nats/auth.conf'],
      ['overlays/prod', 'lore-prod', 'overlays/prod/nats/auth.conf'],
    ]);
    for (const k of k8s)
      expect(readFileSync(join(REPO_DIR, 'infra/k8s', k.authConf!), 'utf8')).toBe(renderAuth([k.nodeId!]));
    expect(check()).toEqual([]);
  });

  it('ships no file that allows any durable consumer name', () => {
    const tracked = execFileSync('git', ['ls-files', '*.conf'], { cwd: REPO_DIR, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(tracked).toContain('infra/k8s/overlays/prod/nats/auth.conf');
    expect(tracked).not.toContain('infra/nats/auth.conf');
    for (const file of tracked) {
      const text = readFileSync(join(REPO_DIR, file), 'utf8');
      expect(text, file).not.toMatch(/LORE_EVENTS\.>/);
    }
    expect(() => renderAuth([])).toThrow(/node ids/);
  });

  describe('pnpm nats:config --check on a copy of the manifests', () => {
    const roots: string[] = [];
    afterAll(() => {
      for (const r of roots) rmSync(r, { recursive: true, force: true });
    });
    /** A copy of infra/ under a temporary repository root, edited by `edit(k8sDir)`. */
    const copy = (edit: (k8s: string) => void) => {
      const root = mkdtempSync(join(tmpdir(), 'lore-nats-check-'));
      roots.push(root);
      cpSync(join(REPO_DIR, 'infra'), join(root, 'infra'), { recursive: true });
      edit(join(root, 'infra/k8s'));
      return root;
    };
    const replaceIn = (file: string, from: string, to: string) => {
      const text = readFileSync(file, 'utf8');
      expect(text).toContain(from);
      writeFileSync(file, text.replace(from, to));
    };

    it('passes on an unchanged copy', () => {
      expect(check(copy(() => {}))).toEqual([]);
    });

    it('fails, naming the file, when an overlay’s node id changes and its auth.conf is not re-rendered', () => {
      const root = copy((k8s) =>
        replaceIn(
          join(k8s, 'overlays/dev/kustomization.yaml'),
          'LORE_NODE_ID=lore-dev',
          'LORE_NODE_ID=lore-lab',
        ),
      );
      expect(check(root)).toEqual([
        'infra/k8s/overlays/dev/nats/auth.conf is rendered for node lore-dev but infra/k8s/overlays/dev/kustomization.yaml sets LORE_NODE_ID=lore-lab: run pnpm nats:config',
      ]);
    });

    it('fails when the base’s node id changes', () => {
      const root = copy((k8s) =>
        replaceIn(join(k8s, 'base/kustomization.yaml'), 'LORE_NODE_ID=lore-k8s', 'LORE_NODE_ID=lore-edge'),
      );
      expect(check(root)).toEqual([
        'infra/k8s/base/nats/auth.conf is rendered for node lore-k8s but infra/k8s/base/kustomization.yaml sets LORE_NODE_ID=lore-edge: run pnpm nats:config',
      ]);
    });

    it('fails when an overlay with its own node id carries its base’s auth.conf', () => {
      const root = copy((k8s) =>
        replaceIn(
          join(k8s, 'overlays/prod/kustomization.yaml'),
          '  - name: nats-config\n    behavior: merge\n    files:\n      - nats/auth.conf\n',
          '',
        ),
      );
      expect(check(root)).toEqual([
        'infra/k8s/overlays/prod/kustomization.yaml sets LORE_NODE_ID=lore-prod but its NATS servers get infra/k8s/base/nats/auth.conf (rendered for lore-k8s): add nats/auth.conf to its nats-config generator and run pnpm nats:config',
      ]);
    });

    it('fails when a rendered file was edited by hand', () => {
      const root = copy((k8s) =>
        replaceIn(
          join(k8s, 'overlays/prod/nats/auth.conf'),
          'users-activity-dms-lore-prod',
          'users-activity-dms-lore-prod2',
        ),
      );
      expect(check(root)).toEqual([
        'infra/k8s/overlays/prod/nats/auth.conf is out of date: run pnpm nats:config',
      ]);
    });
  });

  it('gives each service its own events, replies and inbox, and nobody else’s', () => {
    for (const service of NATS_SERVICES) {
      const p = permissionsFor(service);
      const others = NATS_SERVICES.filter((o) => o !== service);
      expect(p.publish).toContain(`lore.${service}.>`);
      for (const o of others) {
        expect(p.publish).not.toContain(`lore.${o}.>`);
        expect(p.subscribe).not.toContain(`rpc.${o}.>`);
        expect(p.subscribe).not.toContain(`_INBOX.${o}.>`);
      }
      expect(p.subscribe.filter((s) => s.startsWith('_INBOX'))).toEqual([`_INBOX.${service}.>`]);
      const writesDirectory = p.publish.some((s) => s.startsWith('$KV.lore_nodes'));
      expect(writesDirectory).toBe(service === 'users');
    }
  });

  it('lets nobody ask queries to decide, and only queries retrieve knowledge and ask for an evaluation', () => {
    const senders = (subject: string) =>
      NATS_SERVICES.filter((s) => permissionsFor(s).publish.includes(subject));
    // Accepting and rejecting are the queries service's own tools: no request decides from outside.
    expect(senders('rpc.queries.decide')).toEqual([]);
    expect(senders('rpc.approvals.evaluate')).toEqual(['queries']);
    expect(senders('rpc.knowledge.retrieve')).toEqual(['queries']);
    expect(senders('rpc.users.list_agents')).toEqual([]);
  });
});
