import { nearestName } from '../validation/nearest-name.ts';
import { serviceVariables } from './service-config.ts';

const PREFIX = 'TESSERA_';
const settings = Object.keys(serviceVariables).filter((name) => name.startsWith(PREFIX));

/**
 * One warning per `TESSERA_*` variable that no setting reads, with the closest setting's name,
 * as the gateway warns about its `GATEWAY_*` variables. A warning and not a refusal: the
 * environment is shared with other programs, but a mistyped name otherwise silently leaves
 * its setting at the default.
 */
export function unknownServiceVariableWarnings(env: Record<string, string | undefined>): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith(PREFIX) && !Object.hasOwn(serviceVariables, name))
    .sort()
    .map(
      (name) => `${name} configures nothing (no such service setting); did you mean ${nearestName(name, settings)}? Every setting is in docs/configuration.md`,
    );
}
