import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { environmentTree, type GatewayConfig, loadGatewaySetup, readGatewayConfig, TOP_LEVEL_KEYS } from '../../../src/gateway/config/gateway-config.ts';
import { closestGatewayName, unknownVariableWarnings } from '../../../src/gateway/config/unknown-variables.ts';
import { envKey, fileKey } from '../../../src/gateway/settings/config-error.ts';
import { levenshtein } from '../../../src/validation/nearest-name.ts';
import { checkAccepted, checkRefusal, DOCUMENTED, SETTING_NAMES, settingValue, toEnvironment, validTrees, variableName } from './config-arbitraries.ts';

const validEnvironments = validTrees.map(toEnvironment);
/** A valid environment with one to three variables set to another value, or removed. */
const mutatedEnvironment = fc
  .tuple(fc.nat({ max: validEnvironments.length - 1 }), fc.array(fc.tuple(variableName, fc.option(settingValue, { freq: 6 })), { minLength: 1, maxLength: 3 }))
  .map(([base, changes]) => {
    const env: Record<string, string> = { ...validEnvironments[base]! };
    for (const [name, value] of changes) {
      if (value === null) delete env[name];
      else env[name] = value;
    }
    return { base, changes, env };
  });

/** Configuration without what cannot be compared by value (the BlockList) or differs by design (key spellings). */
const comparable = ({ keys: _keys, plugins, requests: { trustedProxies: _list, ...requests }, ...rest }: GatewayConfig) => ({
  ...rest,
  requests,
  plugins: plugins.map(({ keys: _pluginKeys, ...plugin }) => plugin),
});

function load(env: Record<string, string>) {
  const started = performance.now();
  try {
    return loadGatewaySetup({ env });
  } finally {
    assert.ok(performance.now() - started < 1_000, `reading took ${performance.now() - started} ms`);
  }
}

describe('Fuzz: gateway configuration from the environment', () => {
  it('reads each valid environment as the file with the same structure', () => {
    for (const [i, env] of validEnvironments.entries()) {
      const { config, unknownVariables } = load(env);
      assert.deepEqual(unknownVariables, []);
      assert.deepEqual(comparable(config), comparable(readGatewayConfig(validTrees[i]!, fileKey)));
    }
  });

  it('answers every changed environment with a configuration or a GatewayConfigError naming a variable and its rule', () => {
    fc.assert(
      fc.property(mutatedEnvironment, ({ env }) => {
        let setup: ReturnType<typeof load>;
        try {
          setup = load(env);
        } catch (error) {
          const refusal = checkRefusal(error);
          assert.ok(refusal.key in env || DOCUMENTED.test(refusal.key), `${refusal.key} is neither set nor a setting`);
          return;
        }
        checkAccepted(setup.config);
        for (const name of setup.unknownVariables) assert.ok(name in env && !SETTING_NAMES.includes(name), `${name} reported as unknown`);
      }),
      { numRuns: 3000 },
    );
  });

  it('lets a variable that fits no setting change nothing, and warns about it once, without its value', () => {
    const unknownName = variableName.filter((name) => {
      const unknown: string[] = [];
      environmentTree({ [name]: 'x' }, unknown);
      return unknown.length === 1;
    });
    fc.assert(
      fc.property(fc.nat({ max: validEnvironments.length - 1 }), unknownName, settingValue, (base, name, value) => {
        // An empty variable is an unset one (docs/gateway.md), so it is warned about by no one.
        fc.pre(!(name in validEnvironments[base]!) && value !== '');
        const before = load(validEnvironments[base]!).config;
        const { config, unknownVariables } = load({ ...validEnvironments[base]!, [name]: value });
        assert.deepEqual(comparable(config), comparable(before));
        assert.deepEqual(unknownVariables, [name]);
        const [warning = ''] = unknownVariableWarnings(unknownVariables, config);
        const suggestion = /did you mean (\S+)\?/.exec(warning)?.[1] ?? '';
        const stillUnknown: string[] = [];
        environmentTree({ [suggestion]: 'x' }, stillUnknown);
        assert.deepEqual(stillUnknown, [], `the suggestion ${suggestion} fits no setting either`);
        if (value.length > 3) assert.ok(!warning.includes(value) || name.includes(value) || suggestion.includes(value), warning);
      }),
      { numRuns: 1000 },
    );
  });

  it('names a refused value by the variable the operator set', () => {
    const scalar = fc.constantFrom(...TOP_LEVEL_KEYS.filter((key) => key !== 'trusted_proxies'));
    fc.assert(
      fc.property(scalar, settingValue, (key, value) => {
        fc.pre(value !== '');
        const name = envKey([key]);
        try {
          load({ ...validEnvironments[0]!, [name]: value });
        } catch (error) {
          // port and admin_port are checked together, and so are workers and the ports.
          assert.ok([name, 'GATEWAY_ADMIN_PORT', 'GATEWAY_WORKERS'].includes(checkRefusal(error).key), (error as Error).message);
        }
      }),
      { numRuns: 1000 },
    );
  });

  // Found by this file: the hole became the audience "undefined" on every exchange.
  it('regression: _AUDIENCE_1 without _AUDIENCE_0 is refused, naming the list', () => {
    const { GATEWAY_PLUGINS_0_PARAMETERS_AUDIENCE_0: _first, ...env } = validEnvironments[4]!;
    assert.throws(
      () => load(env),
      (error: unknown) => checkRefusal(error).message === 'GATEWAY_PLUGINS_0_PARAMETERS_AUDIENCE: item 0 must be a non-empty string',
    );
  });

  // Found by this file: a TypeError (cannot create property '1' on string '0'), not a configuration error.
  it('regression: _AUDIENCE beside _AUDIENCE_1 is refused as not a list, whichever comes first', () => {
    const { GATEWAY_PLUGINS_0_PARAMETERS_AUDIENCE_0: _first, GATEWAY_PLUGINS_0_PARAMETERS_AUDIENCE_1: _second, ...base } = validEnvironments[4]!;
    const whole = { GATEWAY_PLUGINS_0_PARAMETERS_AUDIENCE: '0' };
    const item = { GATEWAY_PLUGINS_0_PARAMETERS_AUDIENCE_1: '0' };
    for (const env of [
      { ...base, ...whole, ...item },
      { ...base, ...item, ...whole },
    ]) {
      assert.throws(
        () => load(env),
        (error: unknown) => checkRefusal(error).message === 'GATEWAY_PLUGINS_0_PARAMETERS_AUDIENCE: must be a list',
      );
    }
  });

  it('suggests a name at the least edit distance; the distance is a metric', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b, c) => {
        assert.equal(levenshtein(a, b), levenshtein(b, a));
        assert.equal(levenshtein(a, b) === 0, a === b);
        assert.ok(levenshtein(a, c) <= levenshtein(a, b) + levenshtein(b, c));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(variableName, (name) => {
        const best = closestGatewayName(name, ['tx']);
        for (const candidate of SETTING_NAMES.filter((n) => !/_[01]_|_[0-9]$/.test(n)))
          assert.ok(levenshtein(name, best) <= levenshtein(name, candidate), `${candidate} is closer to ${name} than ${best}`);
      }),
      { numRuns: 500 },
    );
  });
});
