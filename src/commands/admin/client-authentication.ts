import { readFileSync } from 'node:fs';
import type { AuthenticationRequest } from '../../clients/authentication.ts';
import { presentClient, switchClientAuthentication } from '../../clients/operations.ts';
import { ClientAuthenticationChange } from '../../clients/schemas.ts';
import type { OAuthClient } from '../../store/types.ts';
import { CommandRefusal, UsageError } from '../command.ts';
import { adminCommand } from './admin-command.ts';
import { checkBody, type FieldNames } from './option-terms.ts';
import { summary } from './output.ts';

// How a client authenticates at the token endpoint (design §4), as create-client and
// set-client-auth take it: by a secret, or without one, by the keys of a file or a URL, or by
// its SPIFFE ID. The service's own rules (clients/authentication.ts) judge what is given.

/** The API's authentication members as the options name them; a key's fault is named inside the file. */
export const AUTHENTICATION_FIELDS: FieldNames = {
  'body.jwks': { document: '--jwks-file' },
  'body.jwks_uri': '--jwks-uri',
  'body.spiffe_id': '--spiffe-id',
};

/** The options that register a client without a secret, one at most. */
export const KEYED_OPTIONS = {
  'jwks-file': {
    value: 'FILE',
    help: 'a JSON JWK Set of the public keys the client signs assertions with:\nit authenticates with private_key_jwt and is given no secret',
  },
  'jwks-uri': {
    value: 'URL',
    help: 'where the client publishes that JWK Set: private_key_jwt, no secret\n(https; loopback http only with TESSERA_DEV=1)',
  },
  'spiffe-id': {
    value: 'ID',
    help: 'the SPIFFE ID its JWT-SVIDs name (spiffe://trust-domain/path):\nit authenticates with spiffe_jwt and is given no secret',
  },
} as const;

export const DEV_ENVIRONMENT = '  TESSERA_DEV=1               development mode: --jwks-uri may then be loopback http';

type KeyedOption = keyof typeof KEYED_OPTIONS;
type KeyedValues = Record<KeyedOption, string | undefined>;

/** The JWK Set a --jwks-file holds, or a refusal naming the option and what is wrong with the file. */
function readJwksFile(path: string): { keys: object[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CommandRefusal(`--jwks-file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CommandRefusal(`--jwks-file: ${path} is not JSON; it must hold a JWK Set, {"keys": [...]}`);
  }
}

/** At most one of `options` given (exactly one when `required`): a client authenticates one way. */
function oneOf(command: string, given: Record<string, unknown>, options: readonly string[], required: boolean): string | undefined {
  const named = options.filter((option) => given[option] !== undefined && given[option] !== false).map((option) => `--${option}`);
  const choice = options.map((option) => `--${option}`).join(', ');
  const more = `\nRun "tessera ${command} --help" for usage.`;
  if (named.length > 1) throw new UsageError(`${named.join(', ')}: give only one of these: a client authenticates one way (${choice})${more}`);
  if (required && named.length === 0) throw new UsageError(`one of ${choice} is required: how the client is to authenticate${more}`);
  return named[0]?.slice(2);
}

/** The registration members of the keyed option given, if any: its method and its keys or identity. */
export function keyedAuthentication(command: string, values: KeyedValues): AuthenticationRequest {
  const option = oneOf(command, values, Object.keys(KEYED_OPTIONS), false) as KeyedOption | undefined;
  if (option === undefined) return {};
  const value = values[option]!;
  if (option === 'jwks-file') return { token_endpoint_auth_method: 'private_key_jwt', jwks: readJwksFile(value) };
  if (option === 'jwks-uri') return { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: value };
  return { token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: value };
}

/** How a client without a secret authenticates, for a summary line: its method and its keys or identity. */
export function keyedSummary(client: OAuthClient): string {
  if (client.spiffeId !== undefined) return `${client.authMethod}, SPIFFE ID ${client.spiffeId}`;
  if (client.jwksUri !== undefined) return `${client.authMethod}, keys from ${client.jwksUri}`;
  return `${client.authMethod}, keys ${(client.jwks?.keys ?? []).map((key) => key.kid ?? key.kty ?? '').join(', ')}`;
}

const SECRET_OPTIONS = {
  'secret-basic': { help: 'client_secret_basic: a secret in the Authorization header' },
  'secret-post': { help: 'client_secret_post: a secret in the form' },
} as const;
const SET_FIELDS: FieldNames = { ...AUTHENTICATION_FIELDS, 'path.client_id': '--client' };

const SET_CLIENT_AUTH = 'admin set-client-auth';

export const setClientAuthCommand = adminCommand({
  name: SET_CLIENT_AUTH,
  description: `Switches how an OAuth2 client authenticates at the token endpoint: give one
method. To one without a secret (--jwks-file, --jwks-uri, --spiffe-id): its secret is
refused from now on. To a secret method after none: a new secret, printed once. Between
the two secret methods it keeps its secret, which both accept. The same rules as PATCH
/oauth2/clients/{client_id}; audited as client.authentication_changed, operator cli.`,
  options: {
    client: { value: 'CLIENT', required: true, help: 'the client id (cli_…)' },
    ...SECRET_OPTIONS,
    ...KEYED_OPTIONS,
  },
  json: 'print the client as the API shows it (client_secret if it got one)',
  environment: DEV_ENVIRONMENT,
  fields: SET_FIELDS,
  async run({ store, org, config, operator }, options) {
    const method = oneOf(SET_CLIENT_AUTH, options, [...Object.keys(SECRET_OPTIONS), ...Object.keys(KEYED_OPTIONS)], true);
    const keyed = method !== 'secret-basic' && method !== 'secret-post';
    const body: AuthenticationRequest = keyed
      ? keyedAuthentication(SET_CLIENT_AUTH, options)
      : { token_endpoint_auth_method: method === 'secret-basic' ? 'client_secret_basic' : 'client_secret_post' };
    checkBody(ClientAuthenticationChange, body, SET_FIELDS);
    const change = body as Parameters<typeof switchClientAuthentication>[3];
    const changed = await switchClientAuthentication(store, org.id, options.client, change, operator, Date.now(), { dev: config.dev });
    if (changed === undefined) throw new CommandRefusal(`--client: no OAuth2 client of this organisation has the id ${JSON.stringify(options.client)}`);
    const { client, secret } = changed;
    const heading = `OAuth2 client ${client.id} now authenticates with ${client.authMethod}`;
    const text =
      secret !== undefined
        ? summary(heading, [['client secret', secret]], 'The secret is shown only now: Tessera stores only its hash.')
        : keyed
          ? summary(heading, [['authentication', keyedSummary(client)]], 'It has no secret: any secret it had is refused from now on.')
          : `${heading}; it keeps its secret, which both secret methods accept.\n`;
    return { text, json: { ...presentClient(client), ...(secret === undefined ? {} : { client_secret: secret }) } };
  },
});
