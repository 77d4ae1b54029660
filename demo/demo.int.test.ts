import { expect, it } from 'vitest';
import { committedOffsetsByKafkaTool, testBrokers } from '../test/support/kafka.ts';
import { runDemo } from './demo.ts';

it('runs the demo on a cluster: every valid order reserved, only poison dead-lettered, all offsets committed', async () => {
  const lines: string[] = [];
  // From another working directory: the demo finds the example function next to its own file.
  const cwd = process.cwd();
  process.chdir('test');
  let result: Awaited<ReturnType<typeof runDemo>>;
  try {
    result = await runDemo(testBrokers(), (line = '') => lines.push(line));
  } finally {
    process.chdir(cwd);
  }
  const output = lines.join('\n');
  expect(output).toMatch(/→ on-failure destination \(RetryAttemptsExhausted\)/);
  expect(output).toMatch(/retry 1 \(partial\) of \d+ records? from /);
  expect(output).toContain(
    'self-check: every valid order reserved, only poison on the dead-letter topic, all offsets committed ✓',
  );
  expect(result.brokers).toEqual(testBrokers());
  const offsets = await committedOffsetsByKafkaTool(result.groupId);
  expect(offsets).toHaveLength(result.partitions);
  for (const row of offsets) expect(row.currentOffset).toBe(row.logEndOffset);
  expect(offsets.reduce((n, row) => n + row.logEndOffset, 0)).toBe(60);
});
