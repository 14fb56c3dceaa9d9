import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { PLUGIN_FIELDS, PLUGIN_TYPES, pluginDefinition } from '../../src/gateway/plugins/registry.ts';
import { FIELD_NAMES } from '../../src/gateway/plugins/token-exchange/schema.ts';
import { GatewayConfigError } from '../../src/gateway/settings/config-error.ts';

describe('Gateway plugin registry', () => {
  it('holds token-exchange, with its parameter names as the vocabulary of GATEWAY_PLUGINS_<N>_PARAMETERS_*', () => {
    assert.deepEqual(PLUGIN_TYPES, ['token-exchange']);
    assert.equal(pluginDefinition('token-exchange')?.type, 'token-exchange');
    assert.deepEqual(PLUGIN_FIELDS, FIELD_NAMES);
  });

  it('knows a type only by its exact name: an inherited property or another case is no type', () => {
    for (const type of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'Token-Exchange', 'token-exchange ', '', 7, null, undefined]) {
      assert.equal(pluginDefinition(type), undefined, String(type));
    }
  });

  it('refuses such a type in a configuration with the known types listed', () => {
    for (const type of ['constructor', '__proto__', 'toString']) {
      assert.throws(
        () => loadGatewayConfig({ env: { GATEWAY_PLUGINS_0_TYPE: type } }),
        (error: unknown) => error instanceof GatewayConfigError && error.message === 'GATEWAY_PLUGINS_0_TYPE: must be token-exchange',
        type,
      );
    }
  });
});
