import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processIdentity, processOutput } from './process.ts';

describe('processOutput', () => {
  it('collects stdout and stderr apart and the exit code', async () => {
    const script = "process.stdout.write('out'); process.stderr.write('err'); process.exitCode = 3;";
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    expect(await processOutput(child)).toEqual({ code: 3, stdout: 'out', stderr: 'err' });
  });

  it('rejects when the command cannot be started', async () => {
    const child = spawn('kafka-lambda-no-such-command', [], { stdio: ['ignore', 'pipe', 'pipe'] });
    await expect(processOutput(child)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('processIdentity', () => {
  it.runIf(process.platform === 'linux')(
    'reads a command line, never an empty one, while a launcher script execs its program',
    async () => {
      // Each process execs twice (bash, bash, sleep): reads right after spawn fall inside an execve now and then.
      const script = 'exec bash -c "exec -a kafka-lambda-exec-probe sleep 30"';
      const empty: number[] = [];
      for (let run = 0; run < 20; run++) {
        const child = spawn('bash', ['-c', script], { stdio: 'ignore' });
        try {
          const pid = child.pid ?? 0;
          for (let read = 0; read < 30; read++) {
            const identity = await processIdentity(pid);
            if (identity?.commandLine === '') empty.push(pid);
          }
          // On a busy machine the last exec may come after those reads: wait for it (never an empty line meanwhile).
          let settled = await processIdentity(pid);
          for (const deadline = Date.now() + 5_000; settled?.commandLine !== 'kafka-lambda-exec-probe 30'; ) {
            if (Date.now() > deadline) break;
            if (settled?.commandLine === '') empty.push(pid);
            await new Promise((resolve) => setTimeout(resolve, 10));
            settled = await processIdentity(pid);
          }
          expect(settled?.commandLine).toBe('kafka-lambda-exec-probe 30');
        } finally {
          child.kill('SIGKILL');
        }
      }
      expect(empty).toEqual([]);
    },
  );
});
