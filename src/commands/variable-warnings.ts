import { unknownServiceVariableWarnings } from '../config/unknown-variables.ts';

/**
 * Says on stderr which `TESSERA_*` variables no setting reads, before the command reads the
 * others: a mistyped TESSERA_DATABASE would otherwise send the command to the default database
 * without a word.
 */
export function warnOfUnknownVariables(command: string, env: Record<string, string | undefined> = process.env): string[] {
  const warnings = unknownServiceVariableWarnings(env);
  for (const warning of warnings) process.stderr.write(`tessera ${command}: warning: ${warning}\n`);
  return warnings;
}
