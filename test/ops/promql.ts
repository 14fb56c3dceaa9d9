/**
 * Just enough of PromQL to say which metrics and which label matchers an expression names, for
 * checking the operations artefacts (ops/) against what the service and the gateway export.
 */

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

// Words of the language that read like metric names: keywords, binary operators, modifiers.
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);
const STRING = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g;

/** The metric names an expression selects; Grafana's `label_values(metric, label)` names its metric. */
export function metricNames(expression: string): string[] {
  const grafana = /^\s*label_values\(\s*([^,)]+?)\s*(?:,[^)]*)?\)\s*$/.exec(expression);
  if (grafana) return metricNames(grafana[1]!);
  const bare = expression
    .replace(STRING, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+-?[0-9a-z]+/g, ' ')
    .replace(/\$\w+/g, ' ')
    .replace(/(?<![\w:])\d[\w.+-]*/g, ' ');
  const names = [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?![A-Za-z0-9_:]|\s*\()/g)].map((m) => m[0]).filter((word) => !KEYWORDS.has(word.toLowerCase()));
  return [...new Set(names)];
}

/** The label matchers of every selector in an expression. */
export function labelMatchers(expression: string): Matcher[] {
  return [...expression.matchAll(/\{([^}]*)\}/g)].flatMap(([, inside]) =>
    [...inside!.matchAll(/([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(([, label, op, value]) => ({
      label: label!,
      op: op as Matcher['op'],
      value: value!.replace(/\\(.)/g, '$1'),
    })),
  );
}

/** The alternatives a regular expression of plain alternations stands for: `/a/(b|c)|/d` is /a/b, /a/c and /d. */
export function alternatives(regex: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < regex.length; i++) {
    if (regex[i] === '(') depth++;
    else if (regex[i] === ')') depth--;
    else if (regex[i] === '|' && depth === 0) parts.push(regex.slice(start, i)), (start = i + 1);
  }
  parts.push(regex.slice(start));
  if (parts.length > 1) return parts.flatMap(alternatives);
  const group = /^(.*?)\(([^()]*)\)(.*)$/.exec(regex);
  return group ? alternatives(group[2]!).flatMap((inner) => alternatives(`${group[1]}${inner}${group[3]}`)) : [regex];
}
