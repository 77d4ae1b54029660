// Runs README's "The local loop" as written: its handler, then every line of its shell block, against a
// background broker started by the block itself (in a private state folder), so the two cannot drift.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheBase, isAlive, packageRoot, processOutput, stopPid } from '../../maven-server/index.ts';

const cli = join(packageRoot, 'bin/kafka-lambda.js');

interface LoopSection {
  handler: string;
  script: string[];
  deadLetterOutput: string;
}

async function readLoopSection(): Promise<LoopSection> {
  const readme = await readFile(join(packageRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('### The local loop');
  expect(start).toBeGreaterThan(0);
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  // Fenced blocks in order, each opening fence paired with its closing one.
  const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)];
  const block = (language: string) => {
    const found = blocks.find((match) => match[1] === language);
    if (!found) throw new Error(`README's local loop has no \`\`\`${language} block`);
    return found[2]!;
  };
  return {
    handler: block('ts'),
    script: block('bash').trimEnd().split('\n'),
    deadLetterOutput: block(''),
  };
}

/** Shell words of one line: '…' literal, "…" and bare words with $NAME expanded, an unquoted # ends the line. */
function shellWords(line: string, variables: Record<string, string>): string[] {
  const words: string[] = [];
  const expand = (text: string) => text.replace(/\$(\w+)/g, (_, name: string) => variables[name] ?? '');
  let i = 0;
  while (i < line.length) {
    if (/\s/.test(line[i]!)) {
      i++;
      continue;
    }
    if (line[i] === '#') break;
    let word = '';
    while (i < line.length && !/\s/.test(line[i]!)) {
      const quote = line[i];
      if (quote === "'" || quote === '"') {
        const end = line.indexOf(quote, i + 1);
        const inner = line.slice(i + 1, end);
        word += quote === '"' ? expand(inner) : inner;
        i = end + 1;
      } else {
        const match = /^[^\s'"]+/.exec(line.slice(i))![0];
        word += expand(match);
        i += match.length;
      }
    }
    words.push(word);
  }
  return words;
}

/** The loop's handler with the fix README asks for: a negative amount is a refund. */
function fixed(handler: string): string {
  const bug = "if (order.amount < 0) throw new Error('negative amount');";
  expect(handler).toContain(bug);
  return handler.replace(
    bug,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source for the handler file
    'if (order.amount < 0) return console.log(`refunded ${order.id}: ${-order.amount}`);',
  );
}

describe("README's local loop", () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let background: ChildProcessByStdio<null, Readable, Readable> | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'kafka-lambda-loop-'));
    // A fresh project folder: the handler, and the package and Middy as its dependencies.
    await mkdir(join(work, 'node_modules/@middy'), { recursive: true });
    await symlink(packageRoot, join(work, 'node_modules/kafka-lambda'));
    await symlink(join(packageRoot, 'node_modules/@middy/core'), join(work, 'node_modules/@middy/core'));
    // A private broker state folder (its own background broker), sharing the resolved jars.
    await mkdir(join(work, 'cache'));
    await symlink(join(cacheBase(), 'kafka'), join(work, 'cache/kafka'));
    env = { ...process.env, KAFKA_LAMBDA_CACHE: join(work, 'cache') };
    delete env.KAFKA_BROKERS;
  });

  afterAll(async () => {
    background?.kill('SIGKILL');
    await processOutput(
      spawn(process.execPath, [cli, 'broker', 'stop'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    // If the loop failed before its `broker stop` and that did not work either, stop the JVM by its pid.
    const record = await readFile(join(work, 'cache/broker.json'), 'utf8').catch(() => undefined);
    const pid = record === undefined ? undefined : (JSON.parse(record) as { pid: number }).pid;
    if (pid !== undefined && isAlive(pid)) await stopPid(pid);
    await rm(work, { recursive: true, force: true });
  });

  it('runs as written: the poison record reaches the dead-letter topic, and after the fix and a replay it is processed', {
    timeout: 900_000,
  }, async () => {
    const { handler, script, deadLetterOutput } = await readLoopSection();
    await writeFile(join(work, 'handler.ts'), handler);
    const variables: Record<string, string> = {};
    const run = (args: string[]) =>
      processOutput(
        spawn(process.execPath, [cli, ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] }),
      );
    let backgroundOutput: Promise<{ code: number | null; stdout: string; stderr: string }> | undefined;
    let backgroundStderr = '';
    const outputs: Record<string, { code: number | null; stdout: string; stderr: string }[]> = {};
    const keep = (command: string, output: { code: number | null; stdout: string; stderr: string }) => {
      outputs[command] = [...(outputs[command] ?? []), output];
    };
    // What README says dev prints once the poison record has used its retries.
    const promised = /"(\S+ → on-failure destination \(\w+\))"/.exec(script.join('\n'))?.[1];
    expect(promised).toBeDefined();

    for (const line of script) {
      const capture = /^(\w+)=\$\((.*)\)\s*(#.*)?$/.exec(line);
      const words = shellWords(capture ? capture[2]! : line, variables);
      if (words.length === 0) {
        if (/fix handler\.ts/.test(line)) await writeFile(join(work, 'handler.ts'), fixed(handler));
        continue;
      }
      if (words.join(' ') === 'kill %1') {
        background!.kill('SIGTERM');
        const stopped = await backgroundOutput!;
        expect(stopped.code, stopped.stderr).toBe(0);
        keep('dev &', stopped);
        continue;
      }
      expect(words.slice(0, 2), line).toEqual(['npx', 'kafka-lambda']);
      const args = words.slice(2);
      if (args.at(-1) === '&') {
        background = spawn(process.execPath, [cli, ...args.slice(0, -1)], {
          cwd: work,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        background.stderr.on('data', (chunk: Buffer) => {
          backgroundStderr += chunk.toString();
        });
        backgroundOutput = processOutput(background);
        continue;
      }
      if (args[0] === 'consume') {
        // The reader watches dev until the poison record has gone to the dead-letter topic.
        for (let i = 0; i < 240 && !backgroundStderr.includes('→ on-failure destination'); i++)
          await sleep(500);
        expect(backgroundStderr).toContain(promised!.replace(/\((\w+)\)$/, '('));
      }
      const result = await run(args);
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      keep(args[0]!, result);
      if (capture) variables[capture[1]!] = result.stdout.trim();
    }

    // The condition's name is the emulator's (AWS spells it two ways); everything else as README shows it.
    const condition = (text: string) =>
      text.replace(/\b(RetriesExhausted|RetryAttemptsExhausted)\b/g, 'CONDITION');
    expect(condition(outputs.consume![0]!.stdout)).toBe(condition(deadLetterOutput));
    const devStderr = outputs['dev &']![0]!.stderr;
    expect(condition(devStderr)).toContain(condition(promised!));
    // The fixed handler, after the replay, processed every record again, the refund included.
    const [rerun] = outputs.dev!;
    const processed = rerun!.stdout.split('\n').filter((l) => /^(charged|refunded) o-\d+/.test(l));
    expect(processed.sort()).toEqual([
      'charged o-0: 0',
      'charged o-1: 1',
      'charged o-2: 2',
      'charged o-3: 3',
      'charged o-4: 4',
      'refunded o-9: 5',
    ]);
    expect(variables.BROKERS).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
