import type { TokenStore } from '../../store/tokens/store.ts';
import type { KeyRing } from '../keys/key-ring.ts';

/** What issuing and reading this server's tokens both need. */
export interface TokenContext {
  store: TokenStore;
  keys: KeyRing;
  /** The public base URL, read per use: with port 0 it is known only after listening. */
  issuer: () => string;
  now: () => number;
}
