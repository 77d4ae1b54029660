import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import { produceSequence, recordId } from '../../test/support/emulator.ts';
import { waitUntilServing } from '../broker/broker.ts';
import { type EmbeddedBroker, startBroker } from '../broker/index.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { createLocalEventSourceMapping } from './index.ts';

let broker: EmbeddedBroker | undefined;
let relaunched: ChildProcess | undefined;

afterAll(async () => {
  if (relaunched?.exitCode === null) {
    const exited = new Promise((resolve) => relaunched?.once('exit', resolve));
    relaunched.kill('SIGKILL');
    await exited;
  }
  await broker?.stop();
});

/** Kills the broker JVM outright, then starts it again with the same command line, port and data. */
async function crashAndRestart(pid: number, downMs: number): Promise<ChildProcess> {
  const [java, ...args] = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
  process.kill(pid, 'SIGKILL');
  await new Promise((r) => setTimeout(r, downMs));
  return spawn(java!, args, { stdio: 'ignore' });
}

it('survives a broker crash and restart mid-stream: nothing lost, offsets committed to the end', {
  timeout: 240_000,
}, async () => {
  broker = await startBroker();
  const brokers = [broker.bootstrapServers];
  const kafka = new Kafka({ clientId: 'broker-restart', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'restart', numPartitions: 4 }], waitForLeaders: true });
  await admin.disconnect();
  await produceSequence(kafka, 'restart', 4, 500);

  const processed = new Set<string>();
  let errors = 0;
  const esm = createLocalEventSourceMapping({
    brokers,
    topic: 'restart',
    consumerGroupId: 'restart-group',
    batchSize: 10,
    maximumBatchingWindowInSeconds: 0,
    onEvent: (event) => {
      if (event.type === 'error') errors++;
    },
    function: {
      handler: async (event: KafkaEvent) => {
        await new Promise((r) => setTimeout(r, 50));
        for (const records of Object.values(event.records))
          for (const r of records) processed.add(recordId(r));
      },
    },
  });
  await esm.start();
  while (processed.size < 300) await new Promise((r) => setTimeout(r, 20));

  relaunched = await crashAndRestart(broker.pid, 3_000);
  await waitUntilServing(broker.bootstrapServers, 90_000);
  await produceSequence(kafka, 'restart', 4, 500);
  await esm.idle();
  await esm.stop();

  expect(errors).toBeGreaterThan(0); // the outage was felt (failed commits, reconnects)
  const missing: string[] = [];
  for (let p = 0; p < 4; p++)
    for (let o = 0; o < 1_000; o++) if (!processed.has(`${p}:${o}`)) missing.push(`${p}:${o}`);
  expect(missing).toEqual([]);
  const check = kafka.admin();
  await check.connect();
  const [committed] = await check.fetchOffsets({ groupId: 'restart-group', topics: ['restart'] });
  await check.disconnect();
  expect(committed?.partitions.map((p) => p.offset).sort()).toEqual(['1000', '1000', '1000', '1000']);
});
