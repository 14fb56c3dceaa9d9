/**
 * The code blocks of a Markdown document, as the docs test runs them.
 *
 * Conventions a doc follows so that its examples run as written:
 *
 * - ```sh and ```bash blocks run, in order, in one bash session per doc (`set -euo pipefail`),
 *   so variables flow from block to block as in a reader's shell.
 * - A ```json block, or a plain ``` block, right after a shell block (only blank lines
 *   between) is that block's output; the test compares what the block printed with it.
 * - ```yaml blocks are gateway configurations; each is started with `tessera gateway --config`.
 * - A block preceded by `<!-- file: PATH -->` on the line above its fence is a file the reader
 *   saves: the shell session writes it to PATH (expanded by the shell, e.g. ${TMPDIR:-/tmp}/…)
 *   at its place among the shell blocks, for the blocks after it to use; a YAML one is then
 *   started by those blocks, not on its own.
 * - A block that must not run is preceded by `<!-- no-run: <reason> -->` on the line above
 *   its fence. The reason is required.
 * - A line `NAME='value'  # printed by npm start` stands for a value of the reader's own
 *   demo (ORG, KEY); the test puts its demo's value there.
 */

export interface DocBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The first word of the info string: sh, bash, yaml, json, or '' for a plain fence. */
  lang: string;
  text: string;
  /** Set when the doc marks the block not to run: the reason it gives. */
  noRun?: string;
  /** Set when the doc marks the block as a file the reader saves: where the shell session writes it. */
  file?: string;
  /** The output block shown right after a shell block. */
  output?: DocBlock;
}

const SHELL = new Set(['sh', 'bash']);
const OUTPUT = new Set(['json', '']);
const NO_RUN = /^<!--\s*no-run:\s*(.*?)\s*-->$/;
const FILE = /^<!--\s*file:\s*(\S.*?)\s*-->$/;

export const isShell = (block: DocBlock): boolean => SHELL.has(block.lang);

/** What runs in the doc's shell session, in order: its shell blocks and the files it saves. */
export const runsInSession = (block: DocBlock): boolean => block.noRun === undefined && (isShell(block) || block.file !== undefined);

/** Every fenced block of `markdown`, each shell block with the output block that follows it. */
export function extractBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let previous: DocBlock | undefined;
  let blankSincePrevious = true;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)/.exec(lines[i]!);
    if (!fence) {
      if (lines[i]!.trim() !== '') blankSincePrevious = false;
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`line ${start + 1}: a code fence that is never closed`);
    const block: DocBlock = { line: start + 1, lang: fence[1]!, text: `${body.join('\n')}\n` };
    const marker = NO_RUN.exec(lines[start - 1]?.trim() ?? '');
    if (marker) {
      if (!marker[1]) throw new Error(`line ${start}: a no-run marker must give its reason`);
      block.noRun = marker[1];
    }
    const file = FILE.exec(lines[start - 1]?.trim() ?? '');
    if (file) block.file = file[1];
    if (previous && isShell(previous) && blankSincePrevious && OUTPUT.has(block.lang) && !previous.output) previous.output = block;
    else blocks.push(block);
    previous = block;
    blankSincePrevious = true;
  }
  return blocks;
}

const PRINTED_BY_DEMO = /^(\s*(?:export\s+)?)([A-Z][A-Z0-9_]*)=('[^']*'|"[^"]*"|\S*)(\s+#.*printed by npm start.*)$/;

/**
 * Puts the demo's own values into the lines marked `# printed by npm start`. A marked line
 * naming a variable the test does not know is an error, so a new marker cannot go unserved.
 */
export function fillPrintedValues(script: string, values: Record<string, string>): string {
  return script
    .split('\n')
    .map((line) => {
      const marked = PRINTED_BY_DEMO.exec(line);
      if (!marked) return line;
      const value = values[marked[2]!];
      if (value === undefined) throw new Error(`"${line.trim()}": the test knows no value of npm start named ${marked[2]}`);
      return `${marked[1]}${marked[2]}='${value}'${marked[4]}`;
    })
    .join('\n');
}

/** The docs' ports (the defaults of the service, the gateway, and the examples' own) and what stands for each. */
export type PortMap = Record<number, number>;

/**
 * Rewrites the docs' literal ports, wherever they name a port: in `127.0.0.1:PORT`, in a
 * `…_PORT=PORT` assignment, in a YAML `port: PORT` or `admin_port: PORT`, and in a Node server's `.listen(PORT`.
 */
export function rewritePorts(text: string, ports: PortMap): string {
  return text.replace(/(127\.0\.0\.1:|localhost:|_PORT=|\b(?:admin_)?port: |\.listen\()(\d{4,5})\b/g, (whole, before: string, port: string) => {
    const to = ports[Number(port)];
    return to === undefined ? whole : `${before}${to}`;
  });
}
