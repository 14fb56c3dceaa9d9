import { sign, verify } from 'node:crypto';
import { KeyRing } from '../../src/oauth/keys/key-ring.ts';
import { joseToDer } from '../../src/oauth/tokens/es256-jws.ts';
import { openStore } from '../../src/store/open-store.ts';
import { BENCH_SECRET } from './service-process.ts';

const ROUNDS = 4_000;

export interface SignatureFloor {
  /** CPU microseconds to verify one person JWT of the run's pool. */
  verifyUs: number;
  /** CPU microseconds to sign one token the size of an exchange's answer. */
  signUs: number;
  cpuUs: number;
}

/**
 * The floor of a token exchange: its signature work alone, done the cheapest way Node offers
 * (node:crypto, synchronous, in this otherwise idle process, each key passed as itself: in an
 * options object Node prepares it again on every call): verify a real subject token and sign
 * the bytes of a real answer, with the service's own keys read from its database the way a
 * replica reads them. No HTTP, no store, no JSON, no base64, no signature re-encoding.
 */
export async function signatureFloor(databaseUrl: string, subjectJwt: string, issuedJwt: string): Promise<SignatureFloor> {
  const { store } = await openStore(databaseUrl);
  try {
    const ring = new KeyRing(store, BENCH_SECRET);
    const { privateKey } = await ring.signingKey();
    const [subjectInput, joseSignature] = split(subjectJwt);
    const subjectSignature = joseToDer(joseSignature);
    const kid = JSON.parse(Buffer.from(subjectJwt.split('.')[0]!, 'base64url').toString()).kid as string;
    const publicKey = await ring.verificationKey(kid);
    if (!publicKey) throw new Error(`the subject token's key ${kid} is not in the service's key ring`);
    const [issuedInput] = split(issuedJwt);
    const verifyUs = perRound(() => {
      if (!verify('sha256', subjectInput, publicKey, subjectSignature)) throw new Error('the floor verified a bad signature');
    });
    const signUs = perRound(() => sign('sha256', issuedInput, privateKey));
    return { verifyUs, signUs, cpuUs: verifyUs + signUs };
  } finally {
    await store.close();
  }
}

function split(jwt: string): [Buffer, Buffer] {
  const cut = jwt.lastIndexOf('.');
  return [Buffer.from(jwt.slice(0, cut)), Buffer.from(jwt.slice(cut + 1), 'base64url')];
}

function perRound(work: () => void): number {
  for (let i = 0; i < 200; i++) work(); // warm up
  const before = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) work();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / ROUNDS;
}
