import { SecretBox } from '../crypto/secret-box.ts';

/** Its own HKDF purpose: a key for connection tokens opens nothing else sealed with TESSERA_SECRET. */
const PURPOSE = 'connection-bearer-tokens';

export function connectionSecretBox(secret: string): SecretBox {
  return new SecretBox(secret, PURPOSE);
}
