import type { CredentialType } from './credential-type.ts';

/**
 * The credential types the service offers, each from its own folder under src/credentials/.
 * The credentials routes accept exactly these `type`s; an empty list accepts none (every
 * create answers 400 naming body.type). Tests add their own through startService's options.
 */
export const credentialTypes: readonly CredentialType[] = [];
