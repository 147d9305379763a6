// What an image's Dockerfile asks of its build, read for scripts/docker-context-check.ts (which
// replays it without a container engine). Pure: Dockerfile text in, a plan out.
//
// Rules:
// - Lines ending in a backslash continue; `#` lines are comments (also inside a continuation,
//   as Docker reads them); instruction names are case-insensitive.
// - `ARG NAME=default` values are substituted as `${NAME}` / `$NAME` in FROM lines only.
// - ENV takes `KEY=value` pairs (quotes removed) or the legacy `KEY value`; each RUN sees the ENV
//   lines above it in its stage.
// - The build stage is the one the runtime stage copies from (`COPY --from=NAME`); only
//   `COPY . .` (the whole context) is supported there, and a RUN before it runs without the
//   context (system packages). A RUN's shell command is split at top-level `&&` into steps.
// - The runtime stage is the last one; its `COPY --from=<build> /app/<path> <dest>` lines say
//   what the image keeps of the build; dest is relative to WORKDIR unless absolute.
// - HEALTHCHECK and CMD are kept in their exec (JSON array) form; a shell form is refused.

export interface RunInstruction {
  /** The shell command as written (continuations joined). */
  readonly command: string;
  /** The command split at top-level `&&`. */
  readonly steps: readonly string[];
  /** ENV in force for it. */
  readonly env: Readonly<Record<string, string>>;
  /** After the stage's `COPY . .` (false: before it, without the context). */
  readonly withContext: boolean;
}

export interface CopyFrom {
  readonly from: string;
  /** Absolute path in the source stage. */
  readonly source: string;
  /** Absolute path in the runtime stage. */
  readonly dest: string;
}

export interface Stage {
  readonly name: string | null;
  readonly base: string;
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly runs: readonly RunInstruction[];
  readonly copiesContext: boolean;
  readonly copiesFrom: readonly CopyFrom[];
  readonly healthcheck: readonly string[] | null;
  readonly cmd: readonly string[] | null;
}

export interface DockerfilePlan {
  readonly stages: readonly Stage[];
  readonly build: Stage;
  readonly runtime: Stage;
}

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** Logical instructions: continuations joined, comments and blank lines dropped. */
export function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = '';
    if (whole === '') continue;
    const space = whole.search(/\s/);
    out.push({ keyword: (space < 0 ? whole : whole.slice(0, space)).toUpperCase(), args: space < 0 ? '' : whole.slice(space + 1).trim() });
  }
  if (pending.trim() !== '') throw new Error('the Dockerfile ends inside a continued line');
  return out;
}

/** Splits a shell command at `&&` outside quotes. */
export function splitSteps(command: string): string[] {
  const steps: string[] = [];
  let quote: string | null = null;
  let current = '';
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote !== null) {
      if (ch === quote) quote = null;
      current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === '&' && command[i + 1] === '&') {
      steps.push(current.trim());
      current = '';
      i++;
    } else {
      current += ch;
    }
  }
  if (quote !== null) throw new Error(`unterminated quote in RUN ${command}`);
  steps.push(current.trim());
  return steps.filter((step) => step !== '');
}

const unquote = (value: string): string => (/^(["']).*\1$/.test(value) ? value.slice(1, -1) : value);

function parseEnv(args: string): Record<string, string> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args)) {
    const space = args.search(/\s/);
    if (space < 0) throw new Error(`ENV ${args}: no value`);
    return { [args.slice(0, space)]: unquote(args.slice(space + 1).trim()) };
  }
  const env: Record<string, string> = {};
  for (const pair of args.match(/[A-Za-z_][A-Za-z0-9_]*=("[^"]*"|'[^']*'|\S*)/g) ?? []) {
    const eq = pair.indexOf('=');
    env[pair.slice(0, eq)] = unquote(pair.slice(eq + 1));
  }
  return env;
}

function execForm(keyword: string, args: string): string[] {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(args);
  } catch {
    // A shell form: refused below.
  }
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) throw new Error(`${keyword} must be in exec form (a JSON array)`);
  return parsed;
}

const resolvePath = (workdir: string, path: string): string =>
  (path.startsWith('/') ? path : `${workdir.replace(/\/$/, '')}/${path.replace(/^\.\//, '')}`).replace(/\/\.?$/, '');

export function parseDockerfile(text: string): DockerfilePlan {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  let stage: {
    name: string | null;
    base: string;
    workdir: string;
    env: Record<string, string>;
    runs: RunInstruction[];
    copiesContext: boolean;
    copiesFrom: CopyFrom[];
    healthcheck: string[] | null;
    cmd: string[] | null;
  } | null = null;
  for (const { keyword, args: rest } of instructions(text)) {
    if (keyword === 'ARG' && stage === null) {
      const [name, value] = rest.split('=', 2) as [string, string | undefined];
      args[name.trim()] = value === undefined ? '' : unquote(value.trim());
      continue;
    }
    if (keyword === 'FROM') {
      if (stage !== null) stages.push(stage);
      const from = rest.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => args[(a ?? b)!] ?? '');
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(from);
      if (match === null) throw new Error(`FROM ${rest}: not understood`);
      stage = { name: match[2] ?? null, base: match[1]!, workdir: '/', env: {}, runs: [], copiesContext: false, copiesFrom: [], healthcheck: null, cmd: null };
      continue;
    }
    if (stage === null) throw new Error(`${keyword} before FROM`);
    switch (keyword) {
      case 'WORKDIR':
        stage.workdir = resolvePath(stage.workdir, rest);
        break;
      case 'ENV':
        Object.assign(stage.env, parseEnv(rest));
        break;
      case 'RUN':
        stage.runs.push({ command: rest, steps: splitSteps(rest), env: { ...stage.env }, withContext: stage.copiesContext });
        break;
      case 'COPY': {
        const from = /^--from=(\S+)\s+(\S+)\s+(\S+)$/.exec(rest);
        if (from !== null) stage.copiesFrom.push({ from: from[1]!, source: from[2]!, dest: resolvePath(stage.workdir, from[3]!) });
        else if (rest === '. .') stage.copiesContext = true;
        else throw new Error(`COPY ${rest}: only \`COPY . .\` and \`COPY --from=STAGE SRC DEST\` are replayed`);
        break;
      }
      case 'HEALTHCHECK': {
        const cmd = /\bCMD\s+(\[.*\])$/.exec(rest);
        if (cmd === null) throw new Error('HEALTHCHECK must end in CMD [...] (exec form)');
        stage.healthcheck = execForm(keyword, cmd[1]!);
        break;
      }
      case 'CMD':
        stage.cmd = execForm(keyword, rest);
        break;
      case 'ARG':
      case 'EXPOSE':
      case 'VOLUME':
      case 'USER':
      case 'LABEL':
        break;
      default:
        throw new Error(`${keyword}: not an instruction this replay knows`);
    }
  }
  if (stage !== null) stages.push(stage);
  const runtime = stages.at(-1);
  if (runtime === undefined) throw new Error('no FROM');
  const buildName = runtime.copiesFrom[0]?.from;
  const build = stages.find((s) => s.name === buildName);
  if (build === undefined) throw new Error('the last stage copies from no named stage');
  if (!build.copiesContext) throw new Error(`stage ${buildName} does not COPY . .`);
  if (runtime.copiesFrom.some((copy) => copy.from !== buildName)) throw new Error(`the runtime stage copies from stages other than ${buildName}`);
  return { stages, build, runtime };
}
