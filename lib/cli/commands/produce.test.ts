import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/support/run-cli.ts';

// Schema flags are checked, and the schema compiled, before any cluster is looked for: no broker here (the
// registration, after the first record is read, is tested with one: produce-schema.int.test.ts).
const produce = (registry: string) =>
  runCli(['produce', '--topic', 'orders', '--value-avro', 'test/events/schemas/order.avsc'], {
    env: { SCHEMA_REGISTRY_URL: registry },
  });

describe('kafka-lambda produce --schema-registry', { timeout: 60_000 }, () => {
  it('refuses a URL with a user name or password, naming the option, never the URL (exit 2)', async () => {
    for (const registry of ['http://user:SECRET-PASS@127.0.0.1:1/', 'http://SECRET-USER@127.0.0.1:1/']) {
      const run = await produce(registry);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        '--schema-registry (or SCHEMA_REGISTRY_URL) has a user name or password in it',
      );
      expect(run.stderr).not.toContain('SECRET');
    }
  });
});

describe('kafka-lambda produce --value-proto', { timeout: 60_000 }, () => {
  it('refuses a .proto file that does not parse, naming the file and where, never its text (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-produce-'));
    try {
      const proto = join(dir, 'broken.proto');
      await writeFile(proto, 'syntax = "proto3";\nmessage Order { string 9SECRET = 1; }\n');
      // Refused before the registry or a cluster is asked: neither listens here.
      const args = ['produce', '--topic', 't', '--value-proto', proto, '--type', 'Order', '--count', '1'];
      const run = await runCli([
        ...args,
        '--schema-registry',
        'http://127.0.0.1:1',
        '--brokers',
        '127.0.0.1:1',
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `kafka-lambda produce: ${proto}: not a valid .proto file: parsing failed at line 2 column 24: an illegal name (its message is withheld: it quotes the file)\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('refuses a .proto file whose import is not found, and --proto-path without --value-proto (exit 2, no cluster asked)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-produce-'));
    try {
      const proto = join(dir, 'order.proto');
      await writeFile(
        proto,
        'syntax = "proto3";\nimport "shop/money.proto";\nmessage Order { shop.Money total = 1; }\n',
      );
      const base = ['produce', '--topic', 't', '--count', '1', '--schema-registry', 'http://127.0.0.1:1'];
      const run = await runCli([
        ...base,
        '--value-proto',
        proto,
        '--type',
        'Order',
        '--brokers',
        '127.0.0.1:1',
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `kafka-lambda produce: ${proto}: an import at line 2 column 1 names a file that is in none of: ${dir}, the working directory (give the folder its path starts from with --proto-path, as protoc's -I)\n`,
      );
      const stray = await runCli([
        ...base,
        '--value-avro',
        'test/events/schemas/order.avsc',
        '--proto-path',
        dir,
      ]);
      expect(stray.code).toBe(2);
      expect(stray.stderr).toBe(
        "kafka-lambda produce: --proto-path goes with --value-proto (it is where the .proto file's imports are)\n",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('kafka-lambda produce without a cluster', { timeout: 60_000 }, () => {
  it('--tombstone needs --key, and takes no value or schema (exit 2)', async () => {
    const keyless = await runCli(['produce', '--topic', 't', '--tombstone', '--brokers', '127.0.0.1:1']);
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toBe(
      'kafka-lambda produce: --tombstone needs --key: a tombstone deletes the records of its key (a compacted topic refuses a record without one)\n',
    );
    for (const extra of [
      ['--value', 'x'],
      ['--key-field', 'id'],
      ['--file', 'package.json'],
      ['--value-avro', 'test/events/schemas/order.avsc'],
    ]) {
      const run = await runCli(['produce', '--topic', 't', '--tombstone', '--key', 'k', ...extra]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/cannot be used with/);
    }
  });

  it('--json prints one object with ok false and the error when it fails before sending (exit as without)', async () => {
    const unreachable = await runCli([
      'produce',
      '--topic',
      't',
      '--count',
      '1',
      '--json',
      '--brokers',
      '127.0.0.1:1',
    ]);
    expect(unreachable.code).toBe(1);
    const message = '127.0.0.1:1: nothing listens there (connection refused)';
    expect(unreachable.stderr).toBe(`kafka-lambda produce: ${message}\n`);
    expect(JSON.parse(unreachable.stdout)).toEqual({
      ok: false,
      error: { message },
      topic: 't',
      created: false,
      records: 0,
      batches: [],
      partitions: [],
    });
    expect(unreachable.stdout.trimEnd().split('\n')).toHaveLength(1);
    const usage = await runCli(['produce', '--topic', 't', '--tombstone', '--json', '--brokers', 'a:1']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({
      ok: false,
      error: { message: /^--tombstone needs --key/ },
    });
  });
});
