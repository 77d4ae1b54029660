import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENVIRONMENT_BOOTSTRAP,
  openTypeScriptChannel,
  type TypeScriptChannel,
} from './sandbox-typescript.ts';

describe('the TypeScript channel of sandbox environments', { timeout: 30_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-sandbox-ts-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Starts the bootstrap on `entry` with `channel`; resolves to what the module posts once loaded. */
  function load(entry: string, channel: TypeScriptChannel): Promise<unknown> {
    const worker = new Worker(ENVIRONMENT_BOOTSTRAP, {
      eval: true,
      workerData: { entry: pathToFileURL(entry).href, typeScript: channel },
      transferList: [channel.port],
    });
    return new Promise((resolve, reject) => {
      worker.once('message', (message) => {
        resolve(message);
        void worker.terminate();
      });
      worker.once('error', reject);
    });
  }

  it('an environment loads a module stripped for an earlier one without asking this process again', async () => {
    const entry = join(dir, 'module.ts');
    await writeFile(
      entry,
      "import { parentPort } from 'node:worker_threads';\nconst answer: number = 42;\nparentPort?.postMessage(answer);\n",
    );
    const first = openTypeScriptChannel();
    try {
      expect(await load(entry, first.channel)).toBe(42);
    } finally {
      first.close();
    }

    const { channel: next, close } = openTypeScriptChannel();
    close();
    const stripped = next.known.find(([url]) => url === pathToFileURL(entry).href);
    expect(stripped?.[2]).toContain('const answer         = 42;');
    // A port nobody answers: had the module been asked for, the environment would wait forever.
    const { port1, port2 } = new MessageChannel();
    const asked: unknown[] = [];
    port1.on('message', (request) => asked.push(request));
    try {
      expect(await load(entry, { ...next, port: port2 })).toBe(42);
      expect(asked).toEqual([]);
    } finally {
      port1.close();
    }
  });
});
