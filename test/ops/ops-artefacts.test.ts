import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { RunningGateway } from '../../src/gateway/lifecycle.ts';
import { backends } from '../helpers/backends.ts';
import { registerClient } from '../helpers/oauth.ts';
import { startOAuthClientGateway } from '../helpers/oauth-client-gateway.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { alternatives, labelMatchers, metricNames } from './promql.ts';

// Issue 28 §4: the Grafana dashboard and the Prometheus alerts in ops/ name only metrics the
// real service and gateway export, select routes the service has, and point to a runbook
// section that exists. promtool's own checks are in test/system/prometheus-rules.system.ts.
const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface AlertRule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Panel {
  type: string;
  id: number;
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
}
interface UnitTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}
interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
}

const alerts = (parse(read('ops/prometheus/tessera-alerts.yml')) as { groups: { rules: AlertRule[] }[] }).groups.flatMap((group) => group.rules);
const dashboard = JSON.parse(read('ops/grafana/tessera.json')) as { panels: Panel[]; templating: { list: Variable[] } };
const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
const expressions = [
  ...alerts.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
  ...panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr }))),
  ...dashboard.templating.list
    .filter((variable) => variable.type === 'query')
    .map((variable) => ({ where: `variable $${variable.name}`, expr: typeof variable.query === 'string' ? variable.query : variable.query.query })),
];

/** Grafana's reference to the dashboard's `datasource` variable, chosen when the dashboard is imported. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's syntax for a variable, not a template literal's
const DATASOURCE_VARIABLE = '${datasource}';
/** Series Prometheus adds to every target it scrapes. */
const PROMETHEUS_OWN = new Set(['up']);
/** prom-client's default process and Node.js metrics, under each program's prefix. */
const DEFAULT_METRIC = /^tessera_(gateway_)?(process|nodejs)_/;

/** `# TYPE` lines: every registered metric, labelled ones without a sample yet included. */
const typesIn = (exposition: string) => new Map([...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name!, type!] as const));

/** GitHub's anchor for a Markdown heading. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('Operations artefacts (ops/grafana/tessera.json, ops/prometheus/tessera-alerts.yml)', () => {
  let service: TestService;
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let exported: Map<string, string>;

  before(async () => {
    service = await startTestService(backends()[0]!);
    upstream = await startRecordingUpstream();
    gateway = await startOAuthClientGateway(service.url, upstream.url, await registerClient(service, await service.org()));
    const text = async (url: string) => (await fetch(url)).text();
    exported = new Map([...typesIn(await text(`${service.url}/metrics`)), ...typesIn(await text(`${gateway.adminUrl}/metrics`))]);
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
    await service?.close();
  });

  it('name only metrics the service or the gateway exports at /metrics (a histogram through its _bucket, _sum and _count)', () => {
    const isExported = (name: string) => {
      if (PROMETHEUS_OWN.has(name) || exported.has(name)) return true;
      const histogram = /^(.+)_(bucket|sum|count)$/.exec(name);
      return (
        histogram !== null &&
        ['histogram', 'summary'].includes(exported.get(histogram[1]!) ?? '') &&
        (histogram[2] !== 'bucket' || exported.get(histogram[1]!) === 'histogram')
      );
    };
    const missing = expressions.flatMap(({ where, expr }) => metricNames(expr).flatMap((name) => (isExported(name) ? [] : [`${where}: ${name}`])));
    assert.deepEqual(missing, []);
    assert.ok(alerts.length >= 10 && panels.length >= 15, `${alerts.length} alerts, ${panels.length} panels`);
  });

  it("show every metric of the product's own (not Node's process metrics) on the dashboard", () => {
    const own = [...exported.keys()].filter((name) => name.startsWith('tessera_') && !DEFAULT_METRIC.test(name));
    assert.ok(own.includes('tessera_http_requests_total') && own.includes('tessera_gateway_requests_total'), own.join(', '));
    const shown = new Set(
      expressions.filter(({ where }) => where.startsWith('panel')).flatMap(({ expr }) => metricNames(expr).map((name) => name.replace(/_bucket$/, ''))),
    );
    assert.deepEqual(
      own.filter((name) => !shown.has(name)),
      [],
    );
  });

  it('select routes by templates the service has (a mistyped route would never match)', async () => {
    // Route templates as the metrics label them: /persons/:person_id, from the OpenAPI document's /persons/{person_id}.
    const openapi = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const templates = Object.keys(openapi.paths).map((path) => path.replace(/\{(\w+)\}/g, ':$1'));
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
    const hasRoute = (url: string) => methods.some((method) => service.service.app.hasRoute({ method, url }));
    const unknown = expressions.flatMap(({ where, expr }) =>
      labelMatchers(expr)
        .filter((matcher) => matcher.label === 'route')
        .flatMap((matcher) =>
          (matcher.op.endsWith('~') ? alternatives(matcher.value) : [matcher.value]).filter((route) =>
            /^[\w/:.-]+$/.test(route) ? !hasRoute(route) : !templates.some((template) => new RegExp(`^(?:${route})$`).test(template)),
          ),
        )
        .map((route) => `${where}: ${route}`),
    );
    assert.deepEqual(unknown, []);
    assert.ok(expressions.some(({ expr }) => expr.includes('route="/oauth2/tokens"')));
  });

  it('give every alert a severity, a summary, a description and a runbook section of docs/operations.md that exists', () => {
    const sections = new Set([...read('docs/operations.md').matchAll(/^#{2,6} (.+)$/gm)].map(([, heading]) => anchor(heading!)));
    const problems = alerts.flatMap(({ alert, labels, annotations }) => {
      const runbook = /^docs\/operations\.md#(.+)$/.exec(annotations?.runbook_url ?? '');
      return [
        ['critical', 'warning', 'info'].includes(labels?.severity ?? '') ? [] : [`${alert}: severity ${labels?.severity}`],
        annotations?.summary && annotations.description ? [] : [`${alert}: summary or description missing`],
        runbook && sections.has(runbook[1]!) ? [] : [`${alert}: runbook_url ${annotations?.runbook_url} is no section of docs/operations.md`],
      ].flat();
    });
    assert.deepEqual(problems, []);
    assert.equal(new Set(alerts.map((rule) => rule.alert)).size, alerts.length, 'alert names are unique');
  });

  it('show every alert firing in at least one of the unit tests promtool runs (ops/prometheus/tessera-alerts.test.yml)', () => {
    const cases = (parse(read('ops/prometheus/tessera-alerts.test.yml')) as UnitTests).tests.flatMap((test) => test.alert_rule_test ?? []);
    const fired = new Set(cases.filter((test) => (test.exp_alerts ?? []).length > 0).map((test) => test.alertname));
    assert.deepEqual(
      alerts.map((rule) => rule.alert).filter((alert) => !fired.has(alert)),
      [],
    );
  });

  it("query Prometheus through the dashboard's datasource variable, with unique panel ids", () => {
    const variables = new Set(dashboard.templating.list.map((variable) => variable.name));
    assert.ok(variables.has('datasource'));
    for (const panel of panels) {
      assert.ok(panel.targets && panel.targets.length > 0, `panel "${panel.title}" has a query`);
      for (const target of [panel, ...panel.targets]) assert.equal(target.datasource?.uid, DATASOURCE_VARIABLE, `panel "${panel.title}"`);
      const used = panel.targets.flatMap((target) => [...target.expr.matchAll(/\$(\w+)/g)].map(([, name]) => name!)).filter((name) => !name.startsWith('__'));
      assert.deepEqual(
        used.filter((name) => !variables.has(name)),
        [],
        `panel "${panel.title}" uses only the dashboard's variables`,
      );
    }
    assert.equal(new Set(dashboard.panels.map((panel) => panel.id)).size, dashboard.panels.length);
  });
});
