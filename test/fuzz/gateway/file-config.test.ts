import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { loadGatewaySetup, readGatewayConfig, TOP_LEVEL_KEYS } from '../../../src/gateway/config/gateway-config.ts';
import { FIELD_NAMES } from '../../../src/gateway/plugins/token-exchange/schema.ts';
import { fileKey } from '../../../src/gateway/settings/config-error.ts';
import { checkAccepted, checkRefusal, DOCUMENTED, settingValue, validTrees, variableName } from './config-arbitraries.ts';

type Tree = Record<string, unknown>;
const KNOWN = new Set<string>([...TOP_LEVEL_KEYS, 'urls', 'plugins', 'type', 'id', 'enabled', 'parameters', 'pattern', 'target', ...FIELD_NAMES]);

/** Where a change goes: every setting the file has, at every depth, and names it does not have. */
const where = fc.oneof(
  fc.constantFrom(...TOP_LEVEL_KEYS, 'urls', 'plugins', 'prot').map((k) => [k]),
  fc.constantFrom('type', 'id', 'enabled', 'parameters', 'paramaters').map((k) => ['plugins', 0, k]),
  fc.constantFrom(...FIELD_NAMES, 'scopes').map((k) => ['plugins', 0, 'parameters', k]),
  fc.constantFrom('pattern', 'target', 'plugins', 'targets').map((k) => ['urls', 0, k]),
  fc.constantFrom(['urls', 0, 'plugins', 'tx'], ['urls', 0, 'plugins', 'tx', 'enabled'], ['urls', 0, 'plugins', 'TX', 'enabled'], ['plugins', 1], ['urls', 1]),
);
/** YAML values of every type, mostly near-valid strings. */
const yamlValue = fc.oneof(
  { weight: 6, arbitrary: settingValue },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
  { weight: 1, arbitrary: fc.array(settingValue, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const change = fc.tuple(where, fc.option(yamlValue, { freq: 6 }));
const mutatedTree = fc.tuple(fc.nat({ max: validTrees.length - 1 }), fc.array(change, { minLength: 1, maxLength: 3 })).map(([base, changes]) => {
  const tree = structuredClone(validTrees[base]!);
  for (const [path, value] of changes) {
    let node = tree as Record<string | number, unknown>;
    for (const part of path.slice(0, -1)) {
      if (typeof node[part] !== 'object' || node[part] === null) node[part] = typeof part === 'number' ? [] : {};
      node = node[part] as Record<string | number, unknown>;
    }
    if (value === null) delete node[path.at(-1)!];
    else node[path.at(-1)!] = value;
  }
  // As YAML would give it: no holes in lists (`plugins[1]` set alone), no NaN.
  return JSON.parse(JSON.stringify(tree)) as Tree;
});

/** fileKey of every path the tree holds, the root being "". */
function writtenKeys(node: unknown, prefix: (string | number)[] = [], out = new Set([''])): Set<string> {
  if (typeof node !== 'object' || node === null) return out;
  for (const [k, child] of Object.entries(node)) {
    // A map numbered like a list ({"0": …}) is read as one where a list belongs, and named so.
    const spellings = Array.isArray(node) ? [Number(k)] : /^\d+$/.test(k) ? [k, Number(k)] : [k];
    for (const part of spellings) {
      out.add(fileKey([...prefix, part]));
      writtenKeys(child, [...prefix, part], out);
    }
  }
  return out;
}

/**
 * The key of a refusal is a path the operator wrote, as far as the file has it, and a setting's
 * name past that (a required key the file lacks): never a position or name the file does not hold.
 */
function checkKeyAsWritten(key: string, tree: unknown): void {
  const written = writtenKeys(tree);
  let rest = key;
  while (!written.has(rest)) {
    const known = [...KNOWN].find((k) => rest === k || rest.endsWith(`.${k}`));
    assert.ok(known, `${key} names something the file does not hold`);
    rest = rest === known ? '' : rest.slice(0, -known.length - 1);
  }
}

const read = (tree: Tree) => {
  try {
    return { config: readGatewayConfig(tree, fileKey) };
  } catch (error) {
    return { refusal: checkRefusal(error) };
  }
};

describe('Fuzz: gateway configuration from a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-fuzz-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  const write = (text: string) => {
    const file = join(dir, `gateway-${++files}.yaml`);
    writeFileSync(file, text);
    return file;
  };

  it('answers every changed file with a configuration or a GatewayConfigError naming a key as written', () => {
    fc.assert(
      fc.property(mutatedTree, (tree) => {
        const outcome = read(tree);
        if (outcome.refusal) return checkKeyAsWritten(outcome.refusal.key, tree);
        checkAccepted(outcome.config!);
        // A setting of one value takes one value: a list or a map is not silently turned into text.
        const scalars = [
          ...TOP_LEVEL_KEYS.filter((k) => k !== 'trusted_proxies').map((k) => [k, tree[k]]),
          ...['pattern', 'target'].map((k) => [`urls[0].${k}`, (tree.urls as Tree[] | undefined)?.[0]?.[k]]),
          ...['type', 'id', 'enabled'].map((k) => [`plugins[0].${k}`, (tree.plugins as Tree[] | undefined)?.[0]?.[k]]),
        ];
        for (const [key, value] of scalars)
          assert.ok(value === undefined || ['string', 'number', 'boolean'].includes(typeof value), `${key}: ${JSON.stringify(value)} was accepted`);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the YAML file of a tree as the tree itself', () => {
    fc.assert(
      fc.property(mutatedTree, (tree) => {
        const direct = read(tree);
        let loaded: typeof direct;
        try {
          loaded = { config: loadGatewaySetup({ file: write(stringify(tree)), env: {} }).config };
        } catch (error) {
          loaded = { refusal: checkRefusal(error) };
        }
        assert.equal(loaded.refusal?.message, direct.refusal?.message);
        assert.equal(JSON.stringify(loaded.config?.plugins), JSON.stringify(direct.config?.plugins));
      }),
      { numRuns: 300 },
    );
  });

  it('answers any text as a file with a configuration or a GatewayConfigError, quickly', () => {
    const yamlish = fc.string({
      unit: fc.constantFrom(
        'a',
        ':',
        ' ',
        '\n',
        '-',
        '[',
        ']',
        '{',
        '}',
        ',',
        '"',
        "'",
        '&a ',
        '*a ',
        '<<',
        '#',
        '\t',
        '%YAML 1.2',
        '---',
        'port',
        'plugins',
        '1',
      ),
      maxLength: 40,
    });
    fc.assert(
      fc.property(fc.oneof(yamlish, fc.string({ unit: 'binary', maxLength: 40 })), (text) => {
        const file = write(text);
        const started = performance.now();
        try {
          checkAccepted(loadGatewaySetup({ file, env: {} }).config);
        } catch (error) {
          const refusal = checkRefusal(error);
          if (refusal.key !== file) checkKeyAsWritten(refusal.key, parse(text));
        }
        assert.ok(performance.now() - started < 1_000, `${JSON.stringify(text)} took ${performance.now() - started} ms`);
      }),
      { numRuns: 500 },
    );
  });

  it('lays the environment over the file: a refusal names the variable or the line, and a variable wins', () => {
    fc.assert(
      fc.property(mutatedTree, fc.array(fc.tuple(variableName, settingValue), { maxLength: 2 }), (tree, variables) => {
        const env = Object.fromEntries(variables);
        let config: ReturnType<typeof loadGatewaySetup>['config'];
        try {
          config = loadGatewaySetup({ file: write(stringify(tree)), env }).config;
        } catch (error) {
          const { key } = checkRefusal(error);
          if (key.startsWith('GATEWAY_')) assert.ok(key in env || DOCUMENTED.test(key), `${key} is neither set nor a setting`);
          else checkKeyAsWritten(key, tree);
          return;
        }
        if (env.GATEWAY_PORT) assert.equal(config.port, Number(env.GATEWAY_PORT));
        if (env.GATEWAY_LOG_LEVEL) assert.equal(config.logLevel, env.GATEWAY_LOG_LEVEL);
        if (env.GATEWAY_HOST) assert.equal(config.host, env.GATEWAY_HOST);
      }),
      { numRuns: 300 },
    );
  });

  const p0 = (validTrees[0]!.plugins as Tree[])[0]!;
  const { plugins: _plugins, urls: _urls, ...withoutEntries } = validTrees[0]!;
  /** Found by this file: each was accepted as its text, named a key the file does not hold, or named a line for a variable. */
  const regressions: [name: string, tree: Tree, env: Record<string, string>, message: string][] = [
    ['a list for a port', { ...validTrees[0]!, port: ['0'] }, {}, 'port: must be a single value, not empty, a list or a map'],
    ['an empty host (read as the host "null")', { ...validTrees[0]!, host: null }, {}, 'host: must be a single value, not empty, a list or a map'],
    [
      'a list for a pattern',
      { ...validTrees[0]!, urls: [{ pattern: ['*/open/*'], target: 'http://x' }] },
      {},
      'urls[0].pattern: must be a single value, not empty, a list or a map',
    ],
    ['a map for urls (named urls[0])', { ...validTrees[0]!, urls: { '': {} } }, {}, 'urls: must be a list'],
    ['a plugin only the environment has', withoutEntries, { GATEWAY_PLUGINS_1_ID: '0' }, 'GATEWAY_PLUGINS_1_TYPE: must be token-exchange'],
    [
      "the environment's parameters over the file's text",
      { ...validTrees[0]!, plugins: [{ ...p0, parameters: '0' }] },
      { GATEWAY_PLUGINS_0_PARAMETERS_SCOPES: 'x' },
      'GATEWAY_PLUGINS_0_PARAMETERS_SCOPES: is not a token-exchange parameter',
    ],
    [
      "the environment's parameters over a file's list (named plugins[0].parameters.0)",
      { ...validTrees[0]!, plugins: [{ ...p0, parameters: [{}] }] },
      { GATEWAY_PLUGINS_0_PARAMETERS_SCOPES: 'x' },
      'GATEWAY_PLUGINS_0_PARAMETERS_SCOPES: is not a token-exchange parameter',
    ],
  ];
  for (const [name, tree, env, message] of regressions) {
    it(`regression: ${name} is refused as "${message}"`, () => {
      assert.throws(
        () => loadGatewaySetup({ file: write(stringify(tree)), env }),
        (error: unknown) => checkRefusal(error).message.startsWith(message),
      );
    });
  }

  it('refuses a YAML alias bomb quickly', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${`*${'abcdefgh'[i]}`.concat(',').repeat(9).slice(0, -1)}]`),
    ];
    const started = performance.now();
    assert.throws(
      () => loadGatewaySetup({ file: write(bomb.join('\n')), env: {} }),
      (error: unknown) => checkRefusal(error).key !== '',
    );
    assert.ok(performance.now() - started < 1_000);
  });
});
