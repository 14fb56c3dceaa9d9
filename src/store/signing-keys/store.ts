export interface SigningKey {
  kid: string;
  alg: 'ES256';
  publicJwk: Record<string, unknown>;
  /** The private JWK sealed with the service secret (see crypto/secret-box.ts). */
  sealedPrivateJwk: string;
  status: 'active' | 'retired';
  createdAt: number;
  retiredAt: number | null;
}

/** The service's token signing keys; at most one is active at a time, across all replicas. */
export interface SigningKeyStore {
  /** Every signing key still on record, newest first. */
  listSigningKeys(): Promise<SigningKey[]>;
  /** Makes `candidate` the active key unless one already is; returns the active key either way. */
  ensureActiveSigningKey(candidate: SigningKey): Promise<SigningKey>;
  /** Retires the active key and makes `next` active, in one transaction. */
  rotateSigningKey(next: SigningKey, at: number): Promise<void>;
}
