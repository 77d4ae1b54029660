import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Two projects: unit tests never wait for a broker; integration tests (*.int.test.ts) share one real
// Apache Kafka broker that test/global-setup.ts starts once per run.
// `kafka-lambda-source` (package.json exports): `kafka-lambda/*` imports resolve to the TypeScript sources.
// Without 'module': the AWS SDK's `module` builds (dist-es) use extensionless imports Node cannot load.
const resolve = {
  conditions: [
    'kafka-lambda-source',
    ...defaultServerConditions.filter((condition) => condition !== 'module'),
  ],
};

export default defineConfig({
  test: {
    projects: [
      {
        ssr: { resolve },
        test: {
          name: 'unit',
          include: ['{lib,functions,infra,test,demo}/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          typecheck: { enabled: true, include: ['{lib,functions,test}/**/*.test-d.ts'] },
          // Several unit tests run the CLI as a child process or fuzz a few hundred batches: on a loaded
          // 2-core machine those take longer than vitest's 5 s default without anything being wrong.
          testTimeout: 30_000,
        },
      },
      {
        ssr: { resolve },
        test: {
          name: 'integration',
          include: ['{lib,functions,infra,test,demo}/**/*.int.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/support/quiet-warnings.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          env: { KAFKAJS_NO_PARTITIONER_WARNING: '1' },
        },
      },
    ],
  },
});
