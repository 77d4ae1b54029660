import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processOutput } from './process.ts';

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
