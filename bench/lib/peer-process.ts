import { fileURLToPath } from 'node:url';
import { type BenchProcess, node, portEnv, startProcess } from './process.ts';

const oidcProviderServer = fileURLToPath(new URL('../peers/oidc-provider-server.ts', import.meta.url));

export interface PeerProcess extends BenchProcess {
  /** `POST` here, form-encoded, with HTTP Basic client authentication. */
  tokenUrl: string;
}

/** node-oidc-provider v9 (client_credentials, in-memory adapter) in a process of its own. */
export async function startOidcProviderPeer(): Promise<PeerProcess> {
  const peer = await startProcess(process.execPath, node(oidcProviderServer), portEnv());
  return { ...peer, tokenUrl: `${peer.url}/token` };
}
