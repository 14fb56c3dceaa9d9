import { GatewayConfigError } from '../../settings/config-error.ts';
import { ClientKeyFileError, readClientKeyFile } from './client-key-file.ts';

/** The plugin's own client at the service, and how it proves itself there (design §7). */
export type PluginClient =
  | { id: string; method: 'client_secret_basic'; secret: string }
  | { id: string; method: 'private_key_jwt'; keyFile: string; keyId?: string }
  | { id: string; method: 'svid' };

/** The values of oauth_client_auth: the secret and the key file say their method by being set. */
export const CLIENT_AUTH_VALUES = ['svid'] as const;

type ClientField = 'oauth_client_id' | 'oauth_client_secret' | 'oauth_client_private_key_file' | 'oauth_client_key_id' | 'oauth_client_auth';

/** The schema's view of the parameters the operator gave, already converted to their kinds. */
interface GivenParameters {
  present(name: ClientField): boolean;
  read(name: ClientField): unknown;
  /** The operator's name of a parameter. */
  at(name: ClientField): string;
}

const CREDENTIALS = ['oauth_client_secret', 'oauth_client_private_key_file', 'oauth_client_auth'] as const;

/**
 * oauth_client_id with exactly one way to authenticate: a secret, a key file, or (in
 * gate_svid mode) the gateway's JWT-SVID; none without a client id. Each refusal names every
 * key it is about. The key file is read here, so a file that cannot sign stops start-up.
 */
export function readClientParams(given: GivenParameters, mode: string): PluginClient | undefined {
  const named = (name: (typeof CREDENTIALS)[number]) => (name === 'oauth_client_auth' ? `${given.at(name)}=svid` : given.at(name));
  const ways = CREDENTIALS.filter((name) => name !== 'oauth_client_auth' || mode === 'gate_svid').map(named);
  // Read, so a value other than svid is refused even where the rules below would not look at it.
  if (given.present('oauth_client_auth')) given.read('oauth_client_auth');
  const set = CREDENTIALS.filter((name) => given.present(name));
  if (given.present('oauth_client_key_id') && !given.present('oauth_client_private_key_file'))
    throw new GatewayConfigError(given.at('oauth_client_key_id'), `applies only with ${given.at('oauth_client_private_key_file')}: the id of its key`);
  if (given.present('oauth_client_auth') && mode !== 'gate_svid')
    throw new GatewayConfigError(given.at('oauth_client_auth'), 'applies only with actor_mode=gate_svid: the client presents the JWT-SVID of that mode');
  if (!given.present('oauth_client_id')) {
    if (set.length > 0)
      throw new GatewayConfigError(given.at('oauth_client_id'), `is required with ${set.map(named).join(' and ')}: the client they authenticate`);
    if (mode === 'oauth_client')
      throw new GatewayConfigError(given.at('oauth_client_id'), `is required with actor_mode=oauth_client, with one of ${ways.join(' or ')}`);
    return undefined;
  }
  if (set.length === 0) throw new GatewayConfigError(given.at('oauth_client_id'), `needs one of ${ways.join(' or ')} set: how the client authenticates`);
  if (set.length > 1) {
    const others = set.filter((_, i) => i !== 1).map(named);
    throw new GatewayConfigError(
      given.at(set[1]!),
      `cannot be set together with ${others.join(' and ')}: the client authenticates in one way, with one of ${ways.join(' or ')}`,
    );
  }
  const id = given.read('oauth_client_id') as string;
  if (set[0] === 'oauth_client_secret') return { id, method: 'client_secret_basic', secret: given.read('oauth_client_secret') as string };
  if (set[0] === 'oauth_client_auth') return { id, method: 'svid' };
  const keyFile = given.read('oauth_client_private_key_file') as string;
  try {
    readClientKeyFile(keyFile);
  } catch (error) {
    if (error instanceof ClientKeyFileError) throw new GatewayConfigError(given.at('oauth_client_private_key_file'), error.message);
    throw error;
  }
  const keyId = given.present('oauth_client_key_id') ? (given.read('oauth_client_key_id') as string) : undefined;
  return { id, method: 'private_key_jwt', keyFile, ...(keyId === undefined ? {} : { keyId }) };
}
