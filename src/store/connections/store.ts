import type { Page, PageRequest } from '../page.ts';

export const connectionTypes = ['scim', 'scim_pull'] as const;
export type ConnectionType = (typeof connectionTypes)[number];

/**
 * An identity provider's directory as the organisation connected it. `scim`: the provider
 * pushes Users to /scim/v2 with a bearer token of which only tokenHash is kept. `scim_pull`:
 * the service reads the provider's own SCIM API at baseUrl with a bearer token it must send,
 * so that one is kept sealed (TESSERA_SECRET), never in the clear.
 */
export interface IdentityConnection {
  id: string;
  orgId: string;
  name: string;
  type: ConnectionType;
  /** type scim only. */
  tokenHash: string | null;
  /** type scim_pull only. */
  baseUrl: string | null;
  sealedBearerToken: string | null;
  createdAt: number;
}

/** Connection names are unique per organisation (ConflictError 'connection_name'). */
export interface ConnectionStore {
  createConnection(connection: IdentityConnection): Promise<void>;
  getConnection(orgId: string, id: string): Promise<IdentityConnection | undefined>;
  /** The connection a SCIM bearer token authenticates, of whichever organisation. */
  findConnectionByTokenHash(tokenHash: string): Promise<IdentityConnection | undefined>;
  listConnections(orgId: string, page: PageRequest): Promise<Page<IdentityConnection>>;
  /** Deletes the connection and, in the same statement, every identity it holds. */
  deleteConnection(orgId: string, id: string): Promise<boolean>;
  /** Replaces a scim connection's token hash: the old token stops working at once. False if none. */
  replaceConnectionToken(orgId: string, id: string, tokenHash: string): Promise<boolean>;
}
