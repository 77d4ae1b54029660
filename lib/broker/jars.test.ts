import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheBase, commandOutput, packageRoot } from '../maven-server/index.ts';
import { BrokerPrerequisiteError } from './errors.ts';
import { assertBrokerJava, resolveBrokerJars, usesLog4j2 } from './jars.ts';

describe('broker prerequisites', () => {
  const saved = { path: process.env.PATH, cache: process.env.KAFKA_LAMBDA_CACHE };
  let bin: string;
  beforeEach(async () => {
    bin = await mkdtemp(join(tmpdir(), 'kafka-lambda-path-'));
  });
  afterEach(async () => {
    process.env.PATH = saved.path;
    if (saved.cache === undefined) delete process.env.KAFKA_LAMBDA_CACHE;
    else process.env.KAFKA_LAMBDA_CACHE = saved.cache;
    await rm(bin, { recursive: true, force: true });
  });

  it('names what is missing when there is no Java', async () => {
    process.env.PATH = bin;
    await expect(assertBrokerJava()).rejects.toThrow(
      new BrokerPrerequisiteError(
        'Java 17+ and Maven are needed for the embedded broker (Java (java) is not on PATH); or set KAFKA_BROKERS=host:port to use your own',
      ),
    );
  });

  it('names what is missing when Java is there but Maven is not and the jars are not cached yet', async () => {
    const java = (await commandOutput('sh', ['-c', 'command -v java']))?.trim();
    expect(java).toBeTruthy();
    await symlink(java!, join(bin, 'java'));
    process.env.PATH = bin;
    process.env.KAFKA_LAMBDA_CACHE = bin;
    const attempt = resolveBrokerJars('3.9.2');
    await expect(attempt).rejects.toBeInstanceOf(BrokerPrerequisiteError);
    await expect(attempt).rejects.toThrow(
      'Java 17+ and Maven are needed for the embedded broker (Maven (mvn) is not on PATH); or set KAFKA_BROKERS',
    );
  });

  it('picks log4j2 from Kafka 4 on', () => {
    expect([usesLog4j2('3.9.2'), usesLog4j2('4.1.1'), usesLog4j2('10.0.0')]).toEqual([false, true, true]);
  });
});

describe('the jar cache', () => {
  const names = ['PATH', 'HOME', 'XDG_CACHE_HOME', 'KAFKA_LAMBDA_CACHE', 'FAKE_MVN_CALLS'] as const;
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-jars-'));
  });
  afterEach(async () => {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('is per user, outside the package: KAFKA_LAMBDA_CACHE, else an absolute XDG_CACHE_HOME, else ~/.cache', () => {
    process.env.HOME = '/home/someone';
    delete process.env.KAFKA_LAMBDA_CACHE;
    delete process.env.XDG_CACHE_HOME;
    expect(cacheBase()).toBe('/home/someone/.cache/kafka-lambda');
    process.env.XDG_CACHE_HOME = '/var/cache/someone';
    expect(cacheBase()).toBe('/var/cache/someone/kafka-lambda');
    // The XDG Base Directory spec says to ignore a relative path.
    process.env.XDG_CACHE_HOME = 'relative/cache';
    expect(cacheBase()).toBe('/home/someone/.cache/kafka-lambda');
    process.env.KAFKA_LAMBDA_CACHE = '/srv/kafka-lambda-cache';
    expect(cacheBase()).toBe('/srv/kafka-lambda-cache');
    expect(cacheBase().startsWith(packageRoot)).toBe(false);
  });

  /** A stand-in for Maven that "downloads" one jar into -DoutputDirectory after a second, or fails. */
  async function fakeMaven(outcome: 'succeeds' | 'fails'): Promise<void> {
    const bin = join(dir, 'bin');
    await writeFile(join(dir, 'calls'), '');
    const script = `#!/bin/sh
[ "$1" = --version ] && { echo "Apache Maven (stand-in)"; exit 0; }
echo call >> "$FAKE_MVN_CALLS"
for arg in "$@"; do case "$arg" in -DoutputDirectory=*) out="\${arg#-DoutputDirectory=}" ;; esac; done
sleep 1
${outcome === 'fails' ? 'echo "Could not transfer artifact" >&2; exit 1' : 'mkdir -p "$out" && echo jar > "$out/kafka_2.13.jar"'}
`;
    await mkdir(bin);
    await writeFile(join(bin, 'mvn'), script);
    await chmod(join(bin, 'mvn'), 0o755);
    process.env.PATH = `${bin}:${saved.PATH}`;
    process.env.FAKE_MVN_CALLS = join(dir, 'calls');
    process.env.KAFKA_LAMBDA_CACHE = join(dir, 'cache');
  }

  it('two resolutions at once (two projects) share one complete folder and leave no partial one', async () => {
    await fakeMaven('succeeds');
    const [first, second] = await Promise.all([resolveBrokerJars('9.9.9'), resolveBrokerJars('9.9.9')]);
    const libs = join(dir, 'cache', 'kafka', '9.9.9', 'libs');
    expect([first, second]).toEqual([libs, libs]);
    expect(await readdir(libs)).toEqual(['kafka_2.13.jar']);
    expect(await readdir(join(dir, 'cache', 'kafka'))).toEqual(['9.9.9']);
    // Later resolutions use the cache without running Maven again.
    const calls = (await readFile(join(dir, 'calls'), 'utf8')).length;
    expect(await resolveBrokerJars('9.9.9')).toBe(libs);
    expect((await readFile(join(dir, 'calls'), 'utf8')).length).toBe(calls);
  });

  it('a failed download names the version and leaves nothing behind', async () => {
    await fakeMaven('fails');
    await expect(resolveBrokerJars('9.9.9')).rejects.toThrow(
      /Maven could not resolve Apache Kafka 9\.9\.9 from Maven Central \(exit 1\):\nCould not transfer artifact/,
    );
    expect(await readdir(join(dir, 'cache', 'kafka'))).toEqual([]);
  });
});
