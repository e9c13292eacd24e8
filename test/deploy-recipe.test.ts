// The deploy recipe (deploy/, docs/decisions/operations.md, 'The deploy recipe'): every setting its
// files give the gateway is one the configuration schema declares, the container starts the gateway
// directly (no npm, no shell), and every probe asks a path the gateway answers. No container
// runtime runs here; these checks are what can be known without one (README.md, "Deploying").
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { registry } from '../generated/registry.ts';
import { CONNECTOR_SETTINGS, envName, SETTINGS } from '../runtime/config/settings.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startGateway, type StartedGateway } from './support/gateway.ts';

const read = (path: string) => readFileSync(new URL(`../deploy/${path}`, import.meta.url), 'utf8');

/** Every environment name the gateway reads: the settings, and the per-connector ones for each connector. */
const KNOWN = new Set([
  ...SETTINGS.flatMap((s) => s.env),
  ...Object.keys(registry).flatMap((key) =>
    CONNECTOR_SETTINGS.flatMap((s) => s.env.map((name) => name.replace('<KEY>', envName(key)))),
  ),
]);
const unknown = (names: readonly string[]) => names.filter((name) => !KNOWN.has(name));

interface Instruction {
  readonly keyword: string;
  readonly rest: string;
}

/** The Containerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), rest: rest.join(' ') };
    });
}

const containerfile = instructions(read('Containerfile'));
const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<
    string,
    {
      build?: unknown;
      image?: string;
      command?: unknown;
      entrypoint?: unknown;
      environment?: Record<string, string>;
      healthcheck?: { test: string[] };
    }
  >;
};
const gatewayServices = Object.entries(compose.services).filter(
  ([, s]) => s.build !== undefined || s.image === 'connector-gateway',
);
const kube = parseAllDocuments(read('kubernetes/gateway.yaml')).map((d) => d.toJS()) as Array<Record<string, any>>;
const deployment = kube.find((d) => d.kind === 'Deployment')!;
const containers = deployment.spec.template.spec.containers as Array<{
  command?: string[];
  args?: string[];
  env: Array<{
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef: { name: string; key: string; optional?: boolean } };
  }>;
  livenessProbe: any;
  readinessProbe: any;
  startupProbe?: any;
}>;
const secret = kube.find((d) => d.kind === 'Secret')!;

describe('the deploy recipe', () => {
  it('names no setting the configuration schema lacks (and the check catches one)', () => {
    expect(
      unknown(['PORT', 'CONNECTOR_REGISTER_MAX_CONCURRENT', 'REGISTER_USERNAME', 'PROT', 'CONNECTOR_NOPE_ID']),
    ).toEqual(['PROT', 'CONNECTOR_NOPE_ID']);
    const fromContainerfile = containerfile
      .filter((i) => i.keyword === 'ENV')
      .flatMap((i) => [...i.rest.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]!));
    const fromCompose = gatewayServices.flatMap(([, s]) => Object.keys(s.environment ?? {}));
    const fromKubernetes = containers.flatMap((c) => c.env.map((e) => e.name));
    // The gateway's settings, then the C library's own variables (not gateway settings).
    expect(fromContainerfile).toEqual(['HOST', 'PORT', 'DATA_DIR', 'MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']);
    const settings = fromContainerfile.filter((name) => !name.startsWith('MALLOC_'));
    for (const names of [fromCompose, fromKubernetes])
      expect(names).toEqual(
        expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'GATEWAY_SECRET_KEYS', 'PUBLIC_BASE_URL', 'DATA_DIR']),
      );
    expect(unknown([...settings, ...fromCompose, ...fromKubernetes])).toEqual([]);
  });

  it('starts the gateway directly as a non-root user, with run-time dependencies only', () => {
    expect(containerfile[0]).toEqual({ keyword: 'FROM', rest: 'node:24-slim' });
    const cmd = containerfile.filter((i) => i.keyword === 'CMD');
    expect(cmd).toHaveLength(1);
    // Exec form: no shell.
    expect(JSON.parse(cmd[0]!.rest)).toEqual([
      'node',
      '--liftoff-only',
      '--max-semi-space-size=8',
      '--heap-growing-percent=30',
      'bin/start.mjs',
    ]);
    expect(containerfile.filter((i) => i.keyword === 'ENTRYPOINT')).toEqual([]);
    const user = containerfile.filter((i) => i.keyword === 'USER').at(-1);
    expect(user?.rest).toBe('node');
    expect(containerfile.findIndex((i) => i.keyword === 'USER')).toBeLessThan(
      containerfile.findIndex((i) => i.keyword === 'CMD'),
    );
    expect(containerfile.find((i) => i.keyword === 'RUN' && i.rest.includes('npm ci'))?.rest).toContain('--omit=dev');
    // Neither compose nor Kubernetes puts anything before it.
    expect(gatewayServices.map(([name]) => name)).toEqual(['gateway-1', 'gateway-2']);
    for (const [, service] of gatewayServices) {
      expect(service.command).toBeUndefined();
      expect(service.entrypoint).toBeUndefined();
    }
    for (const container of containers) {
      expect(container.command).toBeUndefined();
      expect(container.args).toBeUndefined();
    }
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });

  it('keeps the secret keys, the database URL and the SMTP URL (optional) in a Secret', () => {
    const fromSecret = Object.fromEntries(
      containers[0]!.env.filter((e) => e.valueFrom).map((e) => [e.name, e.valueFrom!.secretKeyRef]),
    );
    expect(Object.keys(fromSecret).sort()).toEqual(['DATABASE_URL', 'GATEWAY_SECRET_KEYS', 'SMTP_URL']);
    for (const ref of Object.values(fromSecret)) {
      expect(ref.name).toBe(secret.metadata.name);
      // A key the operator may leave out is marked optional; every other one is in the Secret.
      if (!ref.optional) expect(Object.keys(secret.stringData)).toContain(ref.key);
    }
    expect(fromSecret['SMTP_URL']?.optional).toBe(true);
  });

  describe('probes', () => {
    let store: PlatformStore;
    let gw: StartedGateway;
    beforeAll(async () => {
      store = await openStore({});
      gw = await startGateway(store);
    }, 60_000);
    afterAll(async () => {
      await gw?.close();
      await store?.close();
    });

    it('ask paths the gateway answers with 200: /healthz for liveness, /readyz for readiness', async () => {
      const composePaths = gatewayServices.flatMap(([, s]) =>
        [...s.healthcheck!.test.join(' ').matchAll(/http:\/\/127\.0\.0\.1:8787(\/[a-z]+)/g)].map((m) => m[1]!),
      );
      expect(new Set(composePaths)).toEqual(new Set(['/healthz', '/readyz']));
      const container = containers[0]!;
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      const paths = new Set(
        [
          ...composePaths,
          container.livenessProbe.httpGet.path,
          container.readinessProbe.httpGet.path,
          container.startupProbe?.httpGet.path,
        ].filter(Boolean),
      );
      for (const path of paths) expect((await fetch(`${gw.url}${path}`)).status, path).toBe(200);
      expect((await fetch(`${gw.url}/no-such-probe`)).status).toBe(404); // an unknown path would not pass
    });
  });
});
