import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../test/support/run-cli.ts';
import {
  addClusterOptions,
  ClusterConnectError,
  type ClusterOptions,
  ClusterOptionsError,
  probeCluster,
  resolveCluster,
} from './cluster.ts';
import { CliError } from './errors.ts';

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  server.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return `127.0.0.1:${address.port}`;
}

/** A TCP server that does `onConnection` with each socket. */
const tcp = (onConnection: (socket: Socket) => void) => listen(createServer(onConnection));

const plaintext = (broker: string) => ({
  brokers: [broker],
  auth: { type: 'none' as const },
  kafkaConfig: () => ({ brokers: [broker] }),
});

async function problemOf(broker: string, auth: 'none' | 'tls' = 'none'): Promise<ClusterConnectError> {
  const cluster =
    auth === 'none' ? plaintext(broker) : { ...plaintext(broker), auth: { type: 'tls' as const } };
  const error = await probeCluster(cluster, { timeoutMs: 1_000 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClusterConnectError);
  return error as ClusterConnectError;
}

describe('probeCluster', () => {
  it('accepts a server that answers ApiVersions with Kafka framing and the same correlation id', async () => {
    const broker = await tcp((socket) => {
      socket.once('data', (request: Buffer) => {
        // size, correlation id (bytes 8..12 of the request), error code 0, empty api array
        const answer = Buffer.alloc(14);
        answer.writeInt32BE(10, 0);
        request.copy(answer, 4, 8, 12);
        answer.writeInt16BE(0, 8);
        answer.writeInt32BE(0, 10);
        socket.end(answer);
      });
    });
    await expect(probeCluster(plaintext(broker))).resolves.toBeUndefined();
  });

  it('tells a refused connection ("nothing listens")', async () => {
    const broker = await tcp(() => {});
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const error = await problemOf(broker);
    expect(error.problem).toBe('nothing-listens');
    expect(error.message).toBe(`${broker}: nothing listens there (connection refused)`);
  });

  it('tells an HTTP server ("not Kafka") from its answer, without waiting for the timeout', async () => {
    const broker = await listen(createHttpServer((_, response) => response.end('hello')));
    const started = performance.now();
    const error = await problemOf(broker);
    expect(error.problem).toBe('not-kafka');
    expect(error.message).toMatch(/not a Kafka broker/);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('tells a server that accepts and never answers ("not Kafka") after the timeout', async () => {
    const broker = await tcp(() => {});
    const error = await problemOf(broker);
    expect(error.problem).toBe('not-kafka');
    expect(error.message).toMatch(/sent no answer to Kafka's ApiVersions request within 1 s.*try --auth tls/);
  });

  it('tells a server that closes the connection ("not Kafka", maybe TLS)', async () => {
    const broker = await tcp((socket) => socket.once('data', () => socket.destroy()));
    const error = await problemOf(broker);
    expect(error.problem).toBe('not-kafka');
    expect(error.message).toMatch(/closed the connection without answering.*try --auth tls/);
  });

  it('tells a TLS handshake with a plaintext server ("tls-failed")', async () => {
    const broker = await tcp((socket) => socket.once('data', () => socket.end('no tls here\n')));
    const error = await problemOf(broker, 'tls');
    expect(error.problem).toBe('tls-failed');
  });

  it('reports every bootstrap server when none works', async () => {
    const refused = await tcp(() => {});
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const silent = await tcp((socket) => socket.once('data', () => socket.destroy()));
    const error = await probeCluster(
      { ...plaintext(refused), brokers: [refused, silent] },
      { timeoutMs: 1_000 },
    ).catch((e: ClusterConnectError) => e);
    expect(error).toMatchObject({ problem: 'nothing-listens' });
    expect((error as Error).message).toContain(`${refused}: nothing listens`);
    expect((error as Error).message).toContain(`${silent}: closed the connection`);
  });
});

describe('resolveCluster', () => {
  const options = (extra: Partial<ClusterOptions>): ClusterOptions => ({ auth: 'none', ...extra });

  it('takes --brokers over KAFKA_BROKERS, and names where it came from', async () => {
    const cluster = await resolveCluster(options({ brokers: 'a:1, b:2' }), { command: 'consume' });
    expect(cluster).toMatchObject({ brokers: ['a:1', 'b:2'], origin: '--brokers', local: false });
    expect(cluster.kafkaConfig('x')).toMatchObject({ brokers: ['a:1', 'b:2'], clientId: 'x' });
  });

  it.each([
    [
      { brokers: 'localhost' },
      /^--brokers: entry 1 of 1 has no port: give host:port, e\.g\. localhost:9092$/,
    ],
    [{ brokers: 'a:1,127.0.0.1:99999' }, /^--brokers: entry 2 of 2 has port 99999, not from 1 to 65535$/],
    [{ brokers: '[::1]:0' }, /^--brokers: entry 1 of 1 has port 0, not from 1 to 65535$/],
    [{ brokers: 'a:1,b:c:1' }, /^--brokers: entry 2 of 2 is not host:port \(/],
    [
      { brokers: 'kafka://b-1:9092' },
      /^--brokers: entry 1 of 1 starts with kafka:\/\/: give host:port alone/,
    ],
    [{ brokers: 'a:1 b:2' }, /^--brokers: entry 1 of 1 has a space in it/],
    [{ brokers: ' , ' }, /--brokers names no bootstrap server/],
    [{ brokers: 'a:1', auth: 'sasl-scram-512' as const }, /needs --sasl-username and KAFKA_SASL_PASSWORD/],
    [{ brokers: 'a:1', auth: 'iam' as const }, /--auth iam needs --region or AWS_REGION/],
    [{ brokers: 'a:1', auth: 'mtls' as const, certFile: '/nonexistent/c.pem' }, /--cert-file: cannot read/],
    [{ brokers: 'a:1', auth: 'mtls' as const }, /--auth mtls needs --cert-file and --key-file/],
    [
      { brokers: 'a:1', auth: 'tls' as const, certFile: 'c.pem', keyFile: 'k.pem' },
      /--cert-file and --key-file .*give --auth mtls \(not tls\)/,
    ],
    [{ brokers: 'a:1', auth: 'tls' as const, caFile: '/nonexistent/ca.pem' }, /--ca-file: cannot read/],
  ])('refuses %j as a usage error', async (extra, message) => {
    const saved = process.env.AWS_REGION;
    delete process.env.AWS_REGION;
    try {
      const error = await resolveCluster(options(extra), { command: 'consume' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClusterOptionsError);
      expect((error as Error).message).toMatch(message);
    } finally {
      if (saved !== undefined) process.env.AWS_REGION = saved;
    }
  });

  it.each([
    ['usr7:pw9secret@127.0.0.1:1', '--brokers', 'entry 1 of 1'],
    ['a:1,sasl://alice7:pw9secret@b:9096', '--brokers', 'entry 2 of 2'],
    ['alice7@b:9096', 'KAFKA_BROKERS', 'entry 1 of 1'],
  ])(
    'never echoes an entry with a user part (%s in %s), naming its position and where credentials go',
    async (entry, origin, position) => {
      const saved = process.env.KAFKA_BROKERS;
      if (origin === 'KAFKA_BROKERS') process.env.KAFKA_BROKERS = entry;
      try {
        const error = await resolveCluster(options(origin === '--brokers' ? { brokers: entry } : {}), {
          command: 'consume',
        }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClusterOptionsError);
        const { message } = error as Error;
        expect(message).toBe(
          `${origin}: ${position} has a user part (…@host:port): credentials never go in ${origin}; give --auth sasl-scram-512, sasl-scram-256 or basic with --sasl-username, and the password in KAFKA_SASL_PASSWORD`,
        );
        expect(message).not.toMatch(/pw9secret|usr7|alice7|sasl:/);
      } finally {
        if (saved === undefined) delete process.env.KAFKA_BROKERS;
        else process.env.KAFKA_BROKERS = saved;
      }
    },
  );

  it.each([[['consume', '--topic', 'x']], [['replay', '--group', 'g', '--topic', 'x', '--to-earliest']]])(
    '%j refuses a --brokers entry with a password without printing it (exit 2)',
    async (args) => {
      const run = await runCli([...args, '--brokers', 'user:secretpw@127.0.0.1:1']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--brokers: entry 1 of 1 has a user part');
      expect(run.stderr + run.stdout).not.toMatch(/secretpw|user:/);
    },
  );

  it('says how to get a broker when none is given and no background broker runs', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'kafka-lambda-cluster-'));
    const saved = { cache: process.env.KAFKA_LAMBDA_CACHE, brokers: process.env.KAFKA_BROKERS };
    process.env.KAFKA_LAMBDA_CACHE = cache;
    delete process.env.KAFKA_BROKERS;
    try {
      const error = await resolveCluster(options({}), { command: 'produce' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClusterConnectError);
      expect(error).toMatchObject({ problem: 'no-broker' });
      expect((error as Error).message).toMatch(/kafka-lambda broker start/);
    } finally {
      if (saved.cache === undefined) delete process.env.KAFKA_LAMBDA_CACHE;
      else process.env.KAFKA_LAMBDA_CACHE = saved.cache;
      if (saved.brokers !== undefined) process.env.KAFKA_BROKERS = saved.brokers;
      await rm(cache, { recursive: true, force: true });
    }
  });
});

describe('--auth', () => {
  const parse = async (...args: string[]) => {
    const command = addClusterOptions(new Command('consume'))
      .exitOverride()
      .configureOutput({ writeErr: () => {} })
      .action(() => {});
    await command.parseAsync(args, { from: 'user' });
    return command.opts<ClusterOptions>();
  };

  it("takes the names of Lambda's Kafka triggers, none by default", async () => {
    expect((await parse()).auth).toBe('none');
    for (const type of ['iam', 'sasl-scram-512', 'sasl-scram-256', 'basic', 'mtls', 'tls', 'none']) {
      expect((await parse('--auth', type)).auth).toBe(type);
    }
  });

  it.each([
    ['msk-iam', 'iam'],
    ['scram-sha-512', 'sasl-scram-512'],
    ['scram-sha-256', 'sasl-scram-256'],
    ['plain', 'basic'],
    ['plaintext', 'none'],
  ])('refuses the former spelling %s, naming %s', async (former, now) => {
    const error = await parse('--auth', former).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).code).toBe('commander.invalidArgument');
    expect((error as Error).message).toContain(`--auth ${former}: now spelled "${now}"`);
  });

  it('refuses an unknown name, listing the valid ones', async () => {
    const error = await parse('--auth', 'kerberos').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/Allowed choices are iam, sasl-scram-512, .*, none/);
  });
});

describe('cluster errors', () => {
  it('keep the error they wrap as their cause', async () => {
    const error = await resolveCluster(
      { brokers: 'a:1', auth: 'tls', caFile: '/nonexistent/ca.pem' },
      { command: 'consume' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterOptionsError);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ name: 'ClusterOptionsError', cause: { code: 'ENOENT' } });
    const cause = new Error('SASL authentication failed');
    const connect = new ClusterConnectError('auth-failed', 'b:1: authentication failed', { cause });
    expect(connect).toBeInstanceOf(CliError);
    expect(connect).toMatchObject({ name: 'ClusterConnectError', problem: 'auth-failed', cause });
  });
});
