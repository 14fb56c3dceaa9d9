import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { docConfiguration } from '../../test/system/forward-auth-doc.ts';
import { type BenchProcess, startProcess } from './process.ts';
import { scratchDirectory } from './scratch.ts';

/**
 * nginx with one worker running docs/forward-auth.md's `auth_request` configuration as written
 * (the block the system test runs too), in front of `upstream`, asking the gateway's
 * forward-auth port: what a reader who keeps nginx would measure.
 */
export function startNginxForwardAuth(upstream: string, forwardAuthPort: number): Promise<BenchProcess> {
  const dir = scratchDirectory('bench-nginx-fa-');
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  return startProcess(
    'nginx',
    (port) => {
      const server = docConfiguration('nginx', { proxy: port, forwardAuth: forwardAuthPort, upstream: Number(new URL(upstream).port) });
      writeFileSync(
        join(dir, 'nginx.conf'),
        `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
${server}
}
`,
      );
      return ['-c', join(dir, 'nginx.conf'), '-p', dir];
    },
    () => ({}),
  );
}
