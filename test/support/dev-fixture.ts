// What a test of `kafka-lambda dev` runs against: a topic of the shared broker with records, and a handler
// module written for the test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kafka, Message } from 'kafkajs';
import { createTopicWith, uniqueName } from './kafka.ts';

/** See {@link devFixture}. */
export interface DevFixture {
  /** The temporary folder holding the handler: the test removes it. */
  readonly dir: string;
  readonly topic: string;
  /** The handler module's path. */
  readonly handler: string;
}

/**
 * A new one-partition topic named after `name` holding `messages`, and the handler module `file` (its text
 * `source`) in a new temporary folder, also named after `name`, which the test removes.
 *
 * @example
 * ```ts
 * const { dir, topic, handler } = await devFixture(kafka, 'dev-trace', [{ value: '{}' }], 'rejects.ts', source);
 * try { … } finally { await rm(dir, { recursive: true, force: true }); }
 * ```
 */
export async function devFixture(
  kafka: Kafka,
  name: string,
  messages: Message[],
  file: string,
  source: string,
): Promise<DevFixture> {
  const dir = await mkdtemp(join(tmpdir(), `kafka-lambda-${name}-`));
  try {
    const topic = uniqueName(name);
    await createTopicWith(kafka, topic, messages);
    const handler = join(dir, file);
    await writeFile(handler, source);
    return { dir, topic, handler };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
