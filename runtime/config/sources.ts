// Reading the settings: the config file checked against the JSON Schema made from the settings
// table, environment variables parsed into their setting's form and checked against its schema, and
// messages that name the setting, the expected form and a "did you mean" for a near miss.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Ajv, ErrorObject } from 'ajv';
import {
  CONNECTOR_SETTINGS,
  ConfigError,
  type ConnectorSpecs,
  type Env,
  envName,
  type JsonSchema,
  SETTINGS,
  type Setting,
} from './settings.ts';

/** Edit distance, for "did you mean" hints. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(
        row[j]! + 1,
        row[j - 1]! + 1,
        diagonal + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** `did you mean "port"?` for a near miss, else the list of valid names. */
export function suggest(name: string, known: readonly string[]): string {
  const best = [...known].sort((a, b) => distance(name, a) - distance(name, b))[0];
  if (best !== undefined && distance(name, best) <= Math.max(2, Math.floor(best.length / 3)))
    return `did you mean "${best}"?`;
  return `valid: ${known.join(', ')}`;
}

const ajvs = new WeakMap<ConnectorSpecs, Ajv>();
const require = createRequire(import.meta.url);

/** One validator instance per registry: compiled schemas are cached by it. */
export function makeAjv(specs: ConnectorSpecs): Ajv {
  const cached = ajvs.get(specs);
  if (cached) return cached;
  // Required here, not imported: `storeLocation` runs before anything else loads and needs no validator.
  const { Ajv } = require('ajv') as typeof import('ajv');
  const ajv = new Ajv({ allErrors: false, strict: true, validateSchema: false });
  ajv.addFormat('url', (value: string) => URL.canParse(value));
  ajv.addFormat('connector-key', (value: string) => Object.hasOwn(specs, value));
  ajv.addFormat(
    'secret-key',
    (value: string) => /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32,
  );
  ajv.addFormat('time-zone', (value: string) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
      return true;
    } catch {
      return false;
    }
  });
  ajvs.set(specs, ajv);
  return ajv;
}

/** The dotted file paths as nested JSON Schema objects that refuse unknown keys. */
function objectSchema(settings: readonly Setting[], extra: Record<string, JsonSchema> = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = { ...extra };
  const groups = new Map<string, Setting[]>();
  for (const setting of settings) {
    if (!setting.file) continue;
    const [head, ...rest] = setting.file.split('.');
    if (rest.length === 0) properties[head!] = setting.schema;
    else groups.set(head!, [...(groups.get(head!) ?? []), { ...setting, file: rest.join('.') }]);
  }
  for (const [head, group] of groups) properties[head] = objectSchema(group);
  return { type: 'object', properties, additionalProperties: false };
}

/** The JSON Schema of the config file (GATEWAY_CONFIG or --config). */
function configFileSchema(specs: ConnectorSpecs): JsonSchema {
  const connector = objectSchema(CONNECTOR_SETTINGS);
  return objectSchema(SETTINGS, {
    connectors: {
      type: 'object',
      properties: Object.fromEntries(Object.keys(specs).map((k) => [k, connector])),
      additionalProperties: false,
    },
  });
}

function settingAt(path: string): Setting | undefined {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'connectors' && parts.length >= 3)
    return CONNECTOR_SETTINGS.find((s) => s.file === parts.slice(2).join('.'));
  return (
    SETTINGS.find((s) => s.file === parts.join('.')) ??
    SETTINGS.find((s) => s.file && parts.join('.').startsWith(`${s.file}.`))
  );
}

function fileError(error: ErrorObject, specs: ConnectorSpecs, path: string): ConfigError {
  const at = error.instancePath.split('/').filter(Boolean).join('.');
  if (error.keyword === 'additionalProperties') {
    const unknown = String(error.params.additionalProperty);
    const parent = error.instancePath.split('/').filter(Boolean);
    const known =
      parent.length === 0
        ? [...SETTINGS.flatMap((s) => (s.file ? [s.file.split('.')[0]!] : [])), 'connectors']
        : parent[0] === 'connectors' && parent.length === 1
          ? Object.keys(specs)
          : parent[0] === 'connectors'
            ? [...new Set(CONNECTOR_SETTINGS.map((s) => s.file!.split('.').slice(parent.length - 2)[0]!))]
            : SETTINGS.flatMap((s) =>
                s.file?.startsWith(`${parent.join('.')}.`) ? [s.file.slice(parent.join('.').length + 1)] : [],
              );
    const what = parent[0] === 'connectors' && parent.length === 1 ? 'connector key' : 'setting';
    return new ConfigError(
      `config file ${path}: unknown ${what} "${[...parent, unknown].join('.')}"; ` +
        `${suggest(unknown, [...new Set(known)])}`,
    );
  }
  const setting = settingAt(error.instancePath);
  return new ConfigError(
    `config file ${path}: "${at || '(top level)'}" must be ${setting?.expected ?? error.message ?? 'valid'}` +
      `${at ? '' : ' (a JSON object)'}`,
  );
}

/** `2:BASE64,1:BASE64` → { 2: 'BASE64', 1: 'BASE64' }; a version given twice is refused. */
function parseSecretKeys(value: string): Record<number, string> {
  const out: Record<number, string> = {};
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+):(.+)$/.exec(part);
    if (!match) throw new ConfigError('GATEWAY_SECRET_KEYS must look like "2:<base64 key>,1:<base64 key>"');
    const version = Number(match[1]);
    if (Object.hasOwn(out, version))
      throw new ConfigError(`GATEWAY_SECRET_KEYS names key version ${version} twice; each version must be unique`);
    out[version] = match[2]!;
  }
  return out;
}

function fromEnv(setting: Setting, name: string, raw: string): unknown {
  switch (setting.form) {
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'boolean':
      return raw.trim() === 'true' ? true : raw.trim() === 'false' ? false : raw;
    case 'secretKeys':
      if (!/^\s*\d+:/.test(raw)) throw new ConfigError(`${name} must be ${setting.expected}`);
      return parseSecretKeys(raw);
    default:
      return raw;
  }
}

/** One environment variable in its setting's form, unchecked; undefined when unset or empty. */
function parsedEnvValue(env: Env, setting: Setting, names: readonly string[]): unknown {
  const name = names.find((n) => env[n] !== undefined && env[n] !== '');
  return name ? fromEnv(setting, name, env[name]!) : undefined;
}

/** Checks one environment variable against its setting's schema; undefined when unset or empty. */
export function envValue(
  ajv: Ajv,
  env: Env,
  setting: Setting,
  names: readonly string[],
  specs: ConnectorSpecs,
): unknown {
  const name = names.find((n) => env[n] !== undefined && env[n] !== '');
  if (!name) return undefined;
  const raw = env[name]!;
  const value = fromEnv(setting, name, raw);
  const validate = ajv.compile(setting.schema);
  if (!validate(value)) {
    if (name === 'CONNECTORS_ENABLED') {
      const unknown = (value as string[]).find((k) => !Object.hasOwn(specs, k))!;
      throw new ConfigError(
        `CONNECTORS_ENABLED: unknown connector key "${unknown}"; ${suggest(unknown, Object.keys(specs))}`,
      );
    }
    // The value is not echoed for credentials and keys.
    // A URL is echoed without the password of its user information (redis://user:pw@host).
    const echoed = raw.replace(/(\/\/[^:@/]*):[^@/]*@/, '$1@');
    const shown = setting.form === 'secretKeys' || /_(PASSWORD|SECRET|TOKEN)$/.test(name) ? '' : `, got "${echoed}"`;
    throw new ConfigError(`${name} must be ${setting.expected}${shown}`);
  }
  return value;
}

export function get(object: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), object);
}

/** Environment variables that look like connector settings but name no connector or setting. */
export function checkConnectorEnv(env: Env, specs: ConnectorSpecs): void {
  const known = Object.keys(specs).flatMap((key) =>
    CONNECTOR_SETTINGS.flatMap((s) =>
      s.env.filter((n) => n.startsWith('CONNECTOR_')).map((n) => n.replace('<KEY>', envName(key))),
    ),
  );
  for (const name of Object.keys(env)) {
    if (name.startsWith('CONNECTOR_') && !known.includes(name))
      throw new ConfigError(`unknown setting ${name}; ${suggest(name, known)}`);
  }
}

/**
 * The config file (when there is one) and a reader of deployment-wide settings: the environment
 * wins over the file, the file over the fallback. With `ajv` (loadConfig) the file is checked
 * against its schema and every variable against its setting's; without (storeLocation) values are
 * only parsed.
 */
export function readSettings(specs: ConnectorSpecs, env: Env, configPath: string | undefined, ajv?: Ajv) {
  const path = configPath ?? env.GATEWAY_CONFIG;
  let fileContent: Record<string, unknown> = {};
  if (path) {
    let file: unknown;
    const full = resolve(path);
    if (!existsSync(full)) throw new ConfigError(`config file ${full} does not exist`);
    try {
      file = JSON.parse(readFileSync(full, 'utf8'));
    } catch (error) {
      throw new ConfigError(`config file ${full} is not valid JSON: ${(error as Error).message}`);
    }
    if (ajv) {
      const validate = ajv.compile(configFileSchema(specs));
      if (!validate(file)) throw fileError(validate.errors![0]!, specs, full);
    }
    fileContent = file as Record<string, unknown>;
  }
  const value = <T>(file: string, fallback: T): T => {
    const setting = SETTINGS.find((s) => s.file === file)!;
    const fromVariable = ajv
      ? envValue(ajv, env, setting, setting.env, specs)
      : parsedEnvValue(env, setting, setting.env);
    return (fromVariable ?? get(fileContent, file) ?? fallback) as T;
  };
  return { fileContent, value };
}
