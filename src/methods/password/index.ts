/** The password credential type and what `POST /authn/password` needs, in one import. */
export { COST_CEILINGS, checkCostCeilings, costCeilingBreach, parseImportedPasswordHash } from './cost-ceilings.ts';
export { isOverBudget } from './over-budget.ts';
export { parsePasswordHash } from './parse-password-hash.ts';
export type { PasswordHash } from './password-hash.ts';
export { hashPassword, isWeakerThanPolicy, OWASP_ARGON2ID_POLICY, type PasswordHashPolicy } from './rehash-policy.ts';
export { HashWorkPool, type HashWorkPoolOptions, passwordChecksBusy } from './threads/hash-work-pool.ts';
export { passwordCredentialType, storedPasswordHash } from './type.ts';
export { verifyPassword } from './verify-password.ts';
export { verifyWithoutCredential } from './verify-without-credential.ts';
