import { GatewayConfigError } from '../../settings/config-error.ts';
import type { PluginDefinition } from '../plugin.ts';
import { type ClientKeys, checkPluginClient } from './client-check.ts';
import { ClientKeyFileError } from './client-key-file.ts';
import { tokenExchangePlugin } from './handler.ts';
import { FIELD_NAMES, readTokenExchangeParams, type TokenExchangeParams } from './schema.ts';
import { openSvidSource } from './svid-source.ts';

/** The settings start-up messages name: the client's, and those forward auth checks. */
type TokenExchangeKeys = ClientKeys & { subjectCookie: string; outputHeader: string; actorMode: string };

/** Spec §1: swaps the caller's token for a delegated one (RFC 8693) before the request goes on. */
export const tokenExchange: PluginDefinition<'token-exchange', TokenExchangeParams, TokenExchangeKeys> = {
  type: 'token-exchange',
  fields: FIELD_NAMES,
  parse: readTokenExchangeParams,
  keys: (parameter) => ({
    clientId: parameter('oauth_client_id'),
    clientSecret: parameter('oauth_client_secret'),
    clientKeyFile: parameter('oauth_client_private_key_file'),
    clientAuth: parameter('oauth_client_auth'),
    subjectCookie: parameter('subject_cookie_with_token'),
    outputHeader: parameter('output_header'),
    actorMode: parameter('actor_mode'),
  }),
  readsVariables: ({ actor }) => (actor.mode === 'gate_svid' && actor.source === 'env' ? [actor.envVar] : []),
  // A wrong secret stops start-up instead of failing the first proxied request.
  startupCheck: (plugin) => (plugin.params.client === undefined ? undefined : () => checkPluginClient(plugin)),
  // Behind forward auth the user's proxy forwards the caller's request with our answer's headers
  // written over its own: only a token in the header we overwrite is sure to be gone.
  forwardAuthRefusal({ params, keys }, proxy) {
    const { header, cookie } = params.subject;
    if (cookie !== undefined && !proxy.subjectCookieStripped)
      return new GatewayConfigError(
        keys.subjectCookie,
        `reads the subject from a cookie, which the proxy in front of forward auth passes on to the upstream; set ${proxy.subjectCookieStrippedKey} to true once the proxy strips it (docs/forward-auth.md)`,
      );
    // The actor's token comes with the caller's request too, in a header or cookie the answer
    // cannot clear: the proxy would hand it to the upstream.
    if (params.actor.mode === 'request_actor')
      return new GatewayConfigError(
        keys.actorMode,
        "is request_actor: the actor's token comes with the request, and the proxy in front of forward auth would pass it on to the upstream; use oauth_client or gate_svid for forward auth",
      );
    if (header !== undefined && header.toLowerCase() !== params.outputHeader.toLowerCase())
      return new GatewayConfigError(
        keys.outputHeader,
        `must be the subject's header (${header}) for forward auth: the proxy overwrites only the headers the check answers with, so the caller's token in ${header} would reach the upstream`,
      );
    return undefined;
  },
  async build({ id, enabled, params, keys }, log) {
    // The file and environment sources are the handler's own; only the Workload API's is loaded apart.
    const workloadApi = params.actor.mode === 'gate_svid' && params.actor.source === 'workload_api' ? await openSvidSource(params) : undefined;
    const reportKeyFailure = (reason: string) =>
      log.warn({ plugin: id }, `${keys.clientKeyFile} changed into a file that cannot be used (it ${reason}); assertions are signed with the key read before`);
    try {
      return tokenExchangePlugin(id, enabled, params, { ...(workloadApi ? { workloadApi } : {}), reportKeyFailure });
    } catch (error) {
      // The key file was fine when the configuration was read, and has changed since.
      if (error instanceof ClientKeyFileError) throw new GatewayConfigError(keys.clientKeyFile, error.message);
      throw error;
    }
  },
};
