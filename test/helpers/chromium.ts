import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';

// Which Chromium the browser tests drive: the machine's when it has one, else (Linux x64) the
// headless Chromium that the npm package @sparticuz/chromium ships, so that `npm ci && npm test`
// needs nothing but Node and npm.

/** Where Chromium and Chrome install themselves on Debian/Ubuntu, Fedora and macOS. */
export const MACHINE_CHROMIUMS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export interface ChromiumChoice {
  executablePath: string;
  from: 'CHROMIUM_PATH' | 'machine' | 'npm';
  /** What the npm Chromium needs in its environment (its own NSS libraries and fonts); empty otherwise. */
  env: Record<string, string>;
}

export interface FindChromiumOptions {
  env?: NodeJS.ProcessEnv;
  candidates?: string[];
  platform?: NodeJS.Platform;
  arch?: string;
}

/**
 * $CHROMIUM_PATH when set (and then it must be there), else the first of the machine's installs,
 * else on Linux x64 the npm package's Chromium. The package's npm tarball holds an x64 build only
 * (its arm64 build is a separate download, which this project does not fetch), so elsewhere a
 * machine without a Chromium gets an error that says what to install.
 */
export function findChromium(options: FindChromiumOptions = {}): ChromiumChoice {
  const { env = process.env, candidates = MACHINE_CHROMIUMS, platform = process.platform, arch = process.arch } = options;
  const fromEnv = env.CHROMIUM_PATH;
  if (fromEnv) {
    if (executable(fromEnv)) return { executablePath: fromEnv, from: 'CHROMIUM_PATH', env: {} };
    throw new Error(`CHROMIUM_PATH=${fromEnv} is not an executable: point it at a Chromium or Chrome executable, or unset it`);
  }
  const onMachine = candidates.find(executable);
  if (onMachine) return { executablePath: onMachine, from: 'machine', env: {} };
  if (platform === 'linux' && arch === 'x64') return npmChromium();
  throw new Error(
    `no Chromium found at ${candidates.join(', ')}, and the npm package @sparticuz/chromium only ships one for Linux x64 ` +
      `(this is ${platform} ${arch}): the browser tests need a real browser; install Chromium or Chrome, ` +
      'or set CHROMIUM_PATH to a Chromium or Chrome executable',
  );
}

/** The executable findChromium() picks. */
export function chromiumPath(): string {
  return findChromium().executablePath;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The package keeps Chromium brotli-compressed and unpacks it into os.tmpdir() (/tmp/chromium,
 * shared by every checkout and version, returned as soon as the file exists even half-written).
 * Instead it is unpacked once per package version into node_modules/.cache, which `npm ci` clears:
 * each process unpacks into a staging folder of its own and renames it into place, so test files
 * that start at once never see a partial copy; the loser of the rename drops its copy.
 */
function npmChromium(): ChromiumChoice {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch {
    throw new Error('no Chromium on this machine and @sparticuz/chromium is not installed: run `npm ci`, or set CHROMIUM_PATH');
  }
  const packageDir = entry.slice(0, entry.lastIndexOf(`${sep}build${sep}`));
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const nodeModules = packageDir.slice(0, packageDir.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  const dir = join(nodeModules, '.cache', 'tessera-chromium', `${version}-linux-x64`);
  if (!existsSync(join(dir, 'chromium'))) unpack(packageDir, dir);
  return {
    executablePath: join(dir, 'chromium'),
    from: 'npm',
    env: {
      // The build links against NSS and expat, which a machine without a browser often lacks;
      // the package carries them for Amazon Linux 2023 and they load on Debian too.
      LD_LIBRARY_PATH: [join(dir, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      FONTCONFIG_PATH: join(dir, 'fonts'),
    },
  };
}

function unpack(packageDir: string, dir: string): void {
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.unpacking-`);
  // The package's own unpacker, pointed at the staging folder through TMPDIR, in a child process
  // so that this process's tmpdir() never changes. It unpacks the NSS libraries (al2023.tar.br)
  // only when it believes it runs on AWS Lambda's Node 24 image, which the variable tells it.
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', 'import chromium from "@sparticuz/chromium"; process.stdout.write(await chromium.executablePath());'],
    { cwd: packageDir, env: { ...process.env, TMPDIR: staging, AWS_LAMBDA_JS_RUNTIME: 'nodejs24.x' }, encoding: 'utf8' },
  );
  if (run.status !== 0 || run.stdout !== join(staging, 'chromium')) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`unpacking @sparticuz/chromium failed (exit ${run.status}): ${run.stderr || run.stdout}`);
  }
  // Its fonts.conf names /tmp/fonts, where the package would have put them; point it at this copy.
  const fonts = join(dir, 'fonts');
  writeFileSync(
    join(staging, 'fonts', 'fonts.conf'),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${join(fonts, 'fonts')}</dir><cachedir>${join(fonts, 'cache')}</cachedir></fontconfig>\n`,
  );
  try {
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another test process renamed its copy into place first: use that one.
    if (!existsSync(join(dir, 'chromium'))) throw error;
  }
}
