/**
 * The public API of every package entry, recorded by API Extractor in `api/<entry>.api.md` from the built
 * declarations (run `npm run build` first). `npm run api` rewrites the reports after an intended change;
 * `node scripts/api-report.ts --check` (part of the packaging test) fails when the API differs from the
 * committed reports, so every change to it is a reviewed diff. API Extractor also reports a public symbol
 * that references an unexported type, or lacks documentation.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const root = fileURLToPath(new URL('../', import.meta.url));

interface ExportConditions {
  types: string;
}

/** `.` → `kafka-lambda`, `./schema-registry/glue` → `kafka-lambda-schema-registry-glue`: one report per entry. */
export function reportName(entry: string): string {
  return entry === '.' ? 'kafka-lambda' : `kafka-lambda-${entry.slice(2).replaceAll('/', '-')}`;
}

/**
 * Runs API Extractor on each entry's declarations.
 *
 * @example
 * ```ts
 * const changed = checkApiReports({ update: false }); // [] when the API matches api/*.api.md
 * ```
 * @returns the entries whose API differs from the committed report (always empty with `update`).
 */
export function checkApiReports({ update }: { update: boolean }): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, ExportConditions | string>;
  };
  const temp = mkdtempSync(join(tmpdir(), 'kafka-lambda-api-'));
  mkdirSync(join(root, 'api'), { recursive: true });
  const changed: string[] = [];
  try {
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue; // ./package.json
      const config = ExtractorConfig.prepare({
        configObject: {
          projectFolder: root,
          mainEntryPointFilePath: join(root, target.types),
          bundledPackages: [],
          compiler: {
            overrideTsconfig: {
              compilerOptions: {
                target: 'es2024',
                lib: ['es2024', 'esnext.disposable'],
                module: 'nodenext',
                moduleResolution: 'nodenext',
                types: ['node'],
                strict: true,
                skipLibCheck: true,
              },
            },
          },
          apiReport: {
            enabled: true,
            reportFileName: reportName(entry),
            reportFolder: join(root, 'api'),
            reportTempFolder: temp,
          },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          messages: {
            compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
            extractorMessageReporting: {
              default: { logLevel: ExtractorLogLevel.Warning },
              // Recorded in the report itself (a reviewer sees it), not repeated on the console.
              'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
              'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
              'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
              // TSDoc {@link} targets are a documentation matter, not part of the API's shape.
              'ae-unresolved-link': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
            },
            tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
          },
        },
        configObjectFullPath: undefined,
        packageJsonFullPath: join(root, 'package.json'),
      });
      const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
      if (result.apiReportChanged && !update) changed.push(entry);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return changed;
}

if (import.meta.main) {
  const update = !process.argv.includes('--check');
  const changed = checkApiReports({ update });
  if (changed.length > 0) {
    console.error(
      `api-report: the public API of ${changed.join(', ')} differs from api/*.api.md; review it and run \`npm run api\``,
    );
    process.exitCode = 1;
  }
}
